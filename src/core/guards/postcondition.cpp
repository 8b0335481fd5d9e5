// Postcondition checks (keel/core/postcondition.hpp). The declarative kinds read the output line
// by line, without the tool's own note lines. not_metadata_only is deliberately narrow: the only
// summary it recognises is the "total N" block count that `ls -l` (and dir, vdir) prints before
// its entries, because that line alone is never an answer. The summaries of `du -c` ("12\ttotal")
// and `wc` ("  25 total") are sums a task may ask for, so they pass; so does "total 0" alone,
// which is what `ls -l` prints for an empty directory.
#include "keel/core/postcondition.hpp"

#include <exception>
#include <nlohmann/json.hpp>

#include "core/guards/command_words.hpp"
#include "core/text/text_util.hpp"
#include "keel/tool_spec.hpp"

namespace keel {
namespace {

using nlohmann::json;

constexpr size_t kExcerptChars = 160;

bool starts_with_any(std::string_view line, const std::vector<std::string>& prefixes) {
  const std::string_view lead = line.substr(std::min(line.size(), line.find_first_not_of(" \t")));
  for (const auto& p : prefixes) {
    if (!p.empty() && lead.starts_with(p)) return true;
  }
  return false;
}

// The output's non-blank lines without the tool's note lines, trimmed.
std::vector<std::string_view> data_lines(std::string_view output, const std::vector<std::string>& ignore_prefixes) {
  std::vector<std::string_view> lines;
  while (!output.empty()) {
    const size_t nl = output.find('\n');
    std::string_view line = output.substr(0, nl);
    output = nl == std::string_view::npos ? std::string_view() : output.substr(nl + 1);
    if (starts_with_any(line, ignore_prefixes)) continue;
    line = detail::trim(line);
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

// The data lines on one line (line feeds written as "\n"), cut to kExcerptChars.
std::string excerpt_of(const std::vector<std::string_view>& lines) {
  if (lines.empty()) return "(empty)";
  std::string out;
  for (std::string_view line : lines) {
    if (!out.empty()) out.append("\\n");
    out.append(line);
    if (out.size() > kExcerptChars) break;
  }
  return detail::shorten(out, kExcerptChars);
}

// "1234", "6.8G", "316KiB", "324kB", "323,584": the size on an `ls -l` total line.
bool is_block_count(std::string_view s, bool& nonzero) {
  size_t i = 0;
  if (s.empty() || s[0] < '0' || s[0] > '9') return false;
  nonzero = false;
  for (; i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == ',' || s[i] == '\''); ++i) {
    if (s[i] >= '1' && s[i] <= '9') nonzero = true;
  }
  if (i < s.size() && std::string_view("kKMGTPEZYRQ").find(s[i]) != std::string_view::npos) {
    ++i;
    if (i < s.size() && s[i] == 'i') ++i;
  }
  if (i < s.size() && s[i] == 'B') ++i;
  return i == s.size();
}

// "total 7079928": the block count `ls -l` prints before a directory's entries.
bool is_ls_total(std::string_view line, bool& nonzero) {
  if (!line.starts_with("total") || line.size() < 7 || (line[5] != ' ' && line[5] != '\t')) return false;
  return is_block_count(detail::trim(line.substr(5)), nonzero);
}

// Only `ls -l` total lines (with the "dir:" header ls puts before each when listing several),
// and at least one of them counts blocks: a listing cut before its entries.
bool only_ls_totals(const std::vector<std::string_view>& lines) {
  bool any_nonzero = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    bool nonzero = false;
    if (is_ls_total(lines[i], nonzero)) {
      any_nonzero = any_nonzero || nonzero;
      continue;
    }
    bool next_nonzero = false;
    const bool header = lines[i].back() == ':' && i + 1 < lines.size() && is_ls_total(lines[i + 1], next_nonzero);
    if (!header) return false;
  }
  return any_nonzero;
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out.append(", ");
    out.append("\"").append(s).append("\"");
  }
  return out;
}

// Whether the call is one the postcondition applies to (see PostconditionScope).
bool in_scope(const PostconditionScope& scope, std::string_view arguments_json) {
  if (scope.programs.empty()) return true;
  const json args = json::parse(arguments_json, nullptr, false);
  if (!args.is_object()) return false;
  auto it = args.find(scope.argument);
  if (it == args.end() || !it->is_string()) return false;
  return detail::runs_program(it->get_ref<const std::string&>(), scope.programs);
}

std::optional<std::string> failure_reason(const Postcondition& p, std::string_view output,
                                          std::string_view arguments_json, const std::vector<std::string_view>& lines) {
  switch (p.kind) {
    case PostconditionKind::kNotEmpty:
      if (lines.empty()) return std::string("the output is blank");
      return std::nullopt;
    case PostconditionKind::kNotMetadataOnly:
      if (only_ls_totals(lines)) {
        return std::string("the output is only the \"total N\" block count that `ls -l` prints before the entries, "
                           "and no entries");
      }
      return std::nullopt;
    case PostconditionKind::kMinLines:
      if (lines.size() < p.min_lines) {
        std::string why = "the output has " + std::to_string(lines.size());
        why.append(lines.size() == 1 ? " non-blank line" : " non-blank lines");
        why.append("; at least ").append(std::to_string(p.min_lines)).append(" are required");
        return why;
      }
      return std::nullopt;
    case PostconditionKind::kContainsAny: {
      if (p.any_of.empty()) return std::nullopt;
      for (std::string_view line : lines) {
        for (const auto& s : p.any_of) {
          if (!s.empty() && line.find(s) != std::string_view::npos) return std::nullopt;
        }
      }
      return "the output contains none of " + quoted_list(p.any_of);
    }
    case PostconditionKind::kCustom: {
      if (!p.check) return std::nullopt;
      std::optional<std::string> why;
      try {
        why = p.check(output, arguments_json);
      } catch (const std::exception& e) {
        why = std::string("the check could not read the output (").append(e.what()).append(")");
      } catch (...) {
        why = std::string("the check could not read the output");
      }
      if (why && why->empty()) *why = p.name + " does not hold";
      return why;
    }
  }
  return std::nullopt;
}

Postcondition of_kind(PostconditionKind kind, std::string hint) {
  Postcondition p;
  p.kind = kind;
  p.name = std::string(postcondition_kind_name(kind));
  p.hint = std::move(hint);
  return p;
}

}  // namespace

std::string_view postcondition_kind_name(PostconditionKind kind) {
  switch (kind) {
    case PostconditionKind::kNotEmpty: return "not_empty";
    case PostconditionKind::kNotMetadataOnly: return "not_metadata_only";
    case PostconditionKind::kMinLines: return "min_lines";
    case PostconditionKind::kContainsAny: return "contains_any";
    case PostconditionKind::kCustom: return "custom";
  }
  return "custom";
}

Postcondition Postcondition::not_empty() {
  return of_kind(PostconditionKind::kNotEmpty,
                 "Call the tool again with arguments that return the data the task needs (check the path, pattern or "
                 "command). If the result is genuinely empty, say so in your answer instead of calling again.");
}

Postcondition Postcondition::not_metadata_only() {
  return of_kind(PostconditionKind::kNotMetadataOnly,
                 "A line like \"total 7079928\" is the block count that `ls -l` prints before the entries; it says "
                 "nothing about any file. Run a command whose output holds the entries themselves (for the largest "
                 "file: `ls -S | head -n 1`, or `ls -lS | sed -n 2p` to keep the details) and answer only from those "
                 "lines.");
}

Postcondition Postcondition::at_least_lines(size_t lines) {
  Postcondition p = of_kind(PostconditionKind::kMinLines,
                            "The output must have at least " + std::to_string(lines) +
                                " lines of data. Call the tool again so that it returns them (widen the query or the "
                                "range); if there is genuinely less, say so in your answer instead of calling again.");
  p.min_lines = lines;
  return p;
}

Postcondition Postcondition::contains_any(std::vector<std::string> strings) {
  Postcondition p = of_kind(PostconditionKind::kContainsAny,
                            "The output must mention at least one of " + quoted_list(strings) +
                                ". Call the tool again with arguments that produce it; if that is impossible, say so in "
                                "your answer.");
  p.any_of = std::move(strings);
  return p;
}

Postcondition Postcondition::custom(std::string name, PostconditionCheck check, std::string hint) {
  if (hint.empty()) {
    hint = "Call the tool again so that its output satisfies " + name +
           "; if that is impossible, say so in your answer.";
  }
  Postcondition p = of_kind(PostconditionKind::kCustom, std::move(hint));
  p.name = std::move(name);
  p.check = std::move(check);
  return p;
}

std::optional<PostconditionFailure> check_postcondition(const Postcondition& p, std::string_view output,
                                                        std::string_view arguments_json) {
  if (!in_scope(p.applies_to, arguments_json)) return std::nullopt;
  const std::vector<std::string_view> lines = data_lines(output, p.ignore_prefixes);
  std::optional<std::string> why = failure_reason(p, output, arguments_json, lines);
  if (!why) return std::nullopt;
  PostconditionFailure f;
  f.name = p.name.empty() ? std::string(postcondition_kind_name(p.kind)) : p.name;
  f.reason = std::move(*why);
  f.hint = p.hint;
  f.excerpt = excerpt_of(lines);
  return f;
}

std::optional<PostconditionFailure> check_postconditions(const ToolSpec& spec, std::string_view output,
                                                         std::string_view arguments_json) {
  for (const Postcondition& p : spec.postconditions) {
    if (auto f = check_postcondition(p, output, arguments_json)) return f;
  }
  return std::nullopt;
}

std::string describe_postcondition(const Postcondition& p) {
  const std::string_view kind = postcondition_kind_name(p.kind);
  std::string out = p.name.empty() ? std::string(kind) : p.name;
  if (out != kind) out.append(" (").append(kind).append(")");
  out.append(": ");
  switch (p.kind) {
    case PostconditionKind::kNotEmpty: out.append("the output must not be blank"); break;
    case PostconditionKind::kNotMetadataOnly:
      out.append("the output must be more than the \"total N\" lines of `ls -l`");
      break;
    case PostconditionKind::kMinLines:
      out.append("the output must have at least ").append(std::to_string(p.min_lines)).append(" non-blank lines");
      break;
    case PostconditionKind::kContainsAny: out.append("the output must contain one of ").append(quoted_list(p.any_of)); break;
    case PostconditionKind::kCustom: out.append("checked by the embedding program"); break;
  }
  if (!p.applies_to.programs.empty()) {
    out.append(" (only calls whose ").append(p.applies_to.argument).append(" runs ");
    for (size_t i = 0; i < p.applies_to.programs.size(); ++i) {
      if (i > 0) out.append(i + 1 == p.applies_to.programs.size() ? " or " : ", ");
      out.append(p.applies_to.programs[i]);
    }
    out.append(")");
  }
  return out;
}

}  // namespace keel
