// Private to the rules model: questions about one column of a CSV file, answered with a multi-step
// plan (keel/core/plan.hpp) rather than one call — read the file, parse it, aggregate the column,
// optionally save the figure — whose reply is filled from the results, so the answer quotes what
// the tools computed and nothing the model made up.
//
//   std::optional<RulesDataQuery> q = read_data_query("sum the amount column of sales.csv");
//   // q->op == "sum", q->column == "amount", q->file == "sales.csv", q->output == ""
//   std::string plan = data_plan_reply(*q);   // {"plan": [...], "reply": "The sum of ..."}
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace keel::detail {

struct RulesDataQuery {
  std::string op;      // math_aggregate's op: sum, avg, min, max, count or median
  std::string column;  // the CSV column, as written
  std::string file;    // the CSV file
  std::string output;  // a file to save the figure to ("write/save ... to total.txt"); empty: none
};

// Reads a column question: an aggregate word (sum/total, average/mean, min/lowest, max/highest,
// median, count), a column named next to the word "column" ("the amount column", "column amount")
// and a file path (a word with '.' or '/'); "write|save|store|export ... to|into PATH" adds an
// output. nullopt when any of these is missing.
std::optional<RulesDataQuery> read_data_query(std::string_view task);

// The tools the plan for `query` uses (all must be offered for the plan to be made).
std::vector<std::string> data_plan_tools(const RulesDataQuery& query);

// The plan as JSON text: fs_read -> parse_csv -> math_aggregate [-> fs_write], with a reply that
// states the figure, how many rows it came from and, with an output, where it was saved.
std::string data_plan_reply(const RulesDataQuery& query);

}  // namespace keel::detail
