// parse_json — parses JSON text and optionally extracts a JSONPath-style path (json_path.hpp).
// Output: the (selected) value as compact JSON text. Invalid JSON is an error naming the line and
// column; so is nesting deeper than kMaxDepth (writing such a document back would recurse that
// deep).
#include <nlohmann/json.hpp>

#include "tools/data/data_factories.hpp"
#include "tools/data/json_path.hpp"
#include "tools/fs_common.hpp"

namespace keel::detail {
namespace {

constexpr size_t kMaxDepth = 512;

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "text": {"type": "string", "description": "JSON text to parse"},
    "path": {"type": "string", "description": "Optional JSONPath-style selector: $, .key, ['key'], [0], [-1], [*], .*, ..key (recursive). Wildcards and .. return an array of all matches"}
  },
  "required": ["text"],
  "additionalProperties": false
})json";

struct Position {
  size_t line = 1;
  size_t column = 1;
};

// Line and column (1-based, in bytes) of byte `offset` of `text`.
Position position_of(std::string_view text, size_t offset) {
  Position pos;
  offset = std::min(offset, text.size());
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
  return pos;
}

// The deepest nesting of arrays and objects in `text`, and where it first exceeds `limit`.
bool nesting_exceeds(std::string_view text, size_t limit, size_t& at) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) {
        at = i;
        return true;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

// nlohmann's message without its "[json.exception...] parse error at line 1, column 2: " prefix.
std::string parse_reason(const std::string& what) {
  const size_t at = what.find("parse error");
  if (at == std::string::npos) return what;
  const size_t colon = what.find(": ", at);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

Result<std::string> parse_json_text(const DataToolOptions& options, const nlohmann::json& args) {
  const std::string text = string_arg(args, "text", "");
  if (text.size() > options.max_text_bytes) {
    return Status::ResourceExhausted("text is " + std::to_string(text.size()) + " bytes, over the limit of " +
                                     std::to_string(options.max_text_bytes) + " bytes");
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status::InvalidArgument("text is empty; pass the JSON document to parse");
  }
  size_t deep_at = 0;
  if (nesting_exceeds(text, kMaxDepth, deep_at)) {
    const Position pos = position_of(text, deep_at);
    return Status::InvalidArgument("JSON nests deeper than " + std::to_string(kMaxDepth) + " levels (at line " +
                                   std::to_string(pos.line) + ", column " + std::to_string(pos.column) + ")");
  }
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is the 1-based offset of the character where parsing stopped.
    const Position pos = position_of(text, e.byte > 0 ? e.byte - 1 : 0);
    return Status::InvalidArgument("invalid JSON at line " + std::to_string(pos.line) + ", column " +
                                   std::to_string(pos.column) + ": " + parse_reason(e.what()));
  }
  const auto path = args.find("path");
  if (path == args.end() || !path->is_string()) return to_json_text(doc);
  KEEL_ASSIGN_OR_RETURN(nlohmann::json selected, json_path_select(doc, path->get<std::string>()));
  return to_json_text(selected);
}

}  // namespace

std::unique_ptr<Tool> make_parse_json_tool(const DataToolOptions& options) {
  ToolSpec spec = data_tool_spec(
      "parse_json",
      "Parse JSON text (errors give line and column) and optionally extract values with a JSONPath-style path "
      "such as $.items[0].name, $.items[*].id or $..price.",
      kSchema, /*cacheable=*/true);
  return make_tool(std::move(spec), [options](const nlohmann::json& args, const ToolContext&) {
    return parse_json_text(options, args);
  });
}

}  // namespace keel::detail
