// Column questions for the rules model (llm/rules_data_plan.hpp).
#include "llm/rules_data_plan.hpp"

#include <algorithm>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <utility>

#include "llm/rules_intent.hpp"

namespace keel::detail {
namespace {

bool one_of(std::string_view w, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), w) != set.end();
}

// math_aggregate's op for an aggregate word; empty for other words.
std::string op_of(std::string_view w) {
  if (one_of(w, {"sum", "total"})) return "sum";
  if (one_of(w, {"average", "avg", "mean"})) return "avg";
  if (one_of(w, {"min", "minimum", "lowest", "smallest"})) return "min";
  if (one_of(w, {"max", "maximum", "highest", "largest", "biggest"})) return "max";
  if (w == "median") return "median";
  if (w == "count") return "count";
  return {};
}

// Words that cannot name the column next to "column".
bool is_column_filler(std::string_view w) {
  return one_of(w, {"the", "a", "an", "its", "that", "this", "of", "in", "from", "named", "called", "is", "each"}) ||
         !op_of(w).empty();
}

std::string op_phrase(const std::string& op) {
  if (op == "avg") return "average";
  if (op == "min") return "minimum";
  if (op == "max") return "maximum";
  if (op == "count") return "number of values";
  return op;  // sum, median
}

}  // namespace

std::optional<RulesDataQuery> read_data_query(std::string_view task) {
  const std::vector<RulesWord> words = split_rules_words(task);
  const auto column_at = std::find_if(words.begin(), words.end(),
                                      [](const RulesWord& w) { return one_of(w.lower, {"column", "field"}); });
  if (column_at == words.end()) return std::nullopt;
  const size_t c = static_cast<size_t>(column_at - words.begin());

  RulesDataQuery q;
  for (const RulesWord& w : words) {
    if (q.op = op_of(w.lower); !q.op.empty()) break;
  }
  if (c > 0 && !is_column_filler(words[c - 1].lower) && !rules_word_is_path(words[c - 1])) {
    q.column = words[c - 1].text;  // "the amount column"
  } else {
    size_t j = c + 1;  // "the column named amount"
    while (j < words.size() && one_of(words[j].lower, {"named", "called", "the"})) ++j;
    if (j < words.size() && !is_column_filler(words[j].lower) && !rules_word_is_path(words[j])) q.column = words[j].text;
  }

  const bool writes = std::any_of(words.begin(), words.end(), [](const RulesWord& w) {
    return one_of(w.lower, {"write", "save", "store", "export", "put"});
  });
  for (size_t i = 0; i < words.size(); ++i) {
    if (!rules_word_is_path(words[i])) continue;
    const bool after_to = i > 0 && one_of(words[i - 1].lower, {"to", "into", "as"});
    if (writes && after_to && q.output.empty() && !q.file.empty()) q.output = words[i].text;
    else if (q.file.empty()) q.file = words[i].text;
    else if (writes && after_to && q.output.empty()) q.output = words[i].text;
  }
  if (q.op.empty() || q.column.empty() || q.file.empty()) return std::nullopt;
  return q;
}

std::vector<std::string> data_plan_tools(const RulesDataQuery& query) {
  std::vector<std::string> tools = {"fs_read", "parse_csv", "math_aggregate"};
  if (!query.output.empty()) tools.emplace_back("fs_write");
  return tools;
}

std::string data_plan_reply(const RulesDataQuery& q) {
  using nlohmann::ordered_json;
  ordered_json steps = ordered_json::array();
  steps.push_back({{"tool", "fs_read"}, {"args", {{"path", q.file}}}, {"save_as", "file"}, {"why", "read " + q.file}});
  steps.push_back({{"tool", "parse_csv"},
                   {"args", {{"text", "$tool.file.result"}}},
                   {"save_as", "table"},
                   {"why", "parse it as CSV"}});
  steps.push_back({{"tool", "math_aggregate"},
                   {"args", {{"op", q.op}, {"rows", "$tool.table.rows"}, {"field", q.column}}},
                   {"save_as", "figure"},
                   {"why", "the " + op_phrase(q.op) + " of the " + q.column + " column"}});
  std::string reply = "The " + op_phrase(q.op) + " of the " + q.column + " column in " + q.file +
                      " is {{tool.figure.value}} (from {{tool.figure.count}} of {{tool.table.row_count}} rows).";
  if (!q.output.empty()) {
    steps.push_back({{"tool", "fs_write"},
                     {"args",
                      {{"path", q.output},
                       {"content", op_phrase(q.op) + " of " + q.column + " in " + q.file + ": $tool.figure.value\n"}}},
                     {"save_as", "saved"},
                     {"why", "save the figure to " + q.output}});
    reply += " Saved to " + q.output + ".";
  }
  ordered_json plan = {{"plan", std::move(steps)}, {"reply", std::move(reply)}};
  return plan.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace keel::detail
