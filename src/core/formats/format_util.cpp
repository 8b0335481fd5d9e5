#include "core/formats/format_util.hpp"

#include <algorithm>

#include "core/json_repair.hpp"
#include "core/text_util.hpp"

namespace keel::detail {

using nlohmann::json;

size_t json_extent(std::string_view s, size_t pos) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = pos; i < s.size(); ++i) {
    char c = s[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') ++depth;
    else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

const ToolSpec* find_tool(std::span<const ToolSpec> tools, std::string_view name) {
  auto it = std::find_if(tools.begin(), tools.end(), [&](const ToolSpec& t) { return t.name == name; });
  return it == tools.end() ? nullptr : &*it;
}

namespace {

// The declared JSON type of `param` in the tool's schema, or "" when unknown.
std::string declared_type(std::span<const ToolSpec> tools, std::string_view tool, std::string_view param) {
  const ToolSpec* spec = find_tool(tools, tool);
  if (spec == nullptr) return {};
  json schema = json::parse(spec->parameters_schema, nullptr, false);
  if (!schema.is_object()) return {};
  auto props = schema.find("properties");
  if (props == schema.end() || !props->is_object()) return {};
  auto p = props->find(std::string(param));
  if (p == props->end() || !p->is_object()) return {};
  auto type = p->find("type");
  if (type == p->end()) return {};
  if (type->is_string()) return type->get<std::string>();
  if (type->is_array()) {
    for (const auto& t : *type) {
      if (t.is_string() && t != "null") return t.get<std::string>();
    }
  }
  return {};
}

bool fits(const json& v, const std::string& type) {
  if (type == "integer") return v.is_number_integer();
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "null") return v.is_null();
  return false;
}

}  // namespace

json typed_parameter(std::string_view raw, std::span<const ToolSpec> tools, std::string_view tool,
                     std::string_view param) {
  std::string type = declared_type(tools, tool, param);
  if (type == "string") return json(std::string(raw));
  std::string_view trimmed = trim(raw);
  json parsed = json::parse(trimmed, nullptr, false);
  if (type.empty()) {
    if (!parsed.is_discarded() && !parsed.is_string()) return parsed;
    return json(std::string(raw));
  }
  if (!parsed.is_discarded() && fits(parsed, type)) return parsed;
  if (type == "boolean") {
    std::string lower = lowercase(trimmed);
    if (lower == "true") return true;
    if (lower == "false") return false;
  }
  return json(std::string(raw));  // the schema check reports the mismatch to the model
}

void add_call(FormatResult& out, std::string name, const json& arguments, std::string id) {
  if (!arguments.is_object()) {
    out.error = "the arguments of '" + name + "' must be a JSON object, got " + std::string(arguments.type_name());
    return;
  }
  out.calls.push_back(ToolCall{std::move(id), std::move(name), arguments.dump()});
}

std::optional<json> parse_payload(std::string_view text, FormatResult& out, std::string_view where) {
  LenientJson parsed = parse_json_lenient(text);
  if (!parsed.value) {
    out.error = std::string(where) + ": " + parsed.error;
    return std::nullopt;
  }
  for (auto& r : parsed.repairs) out.repairs.push_back(std::string(where) + ": " + r);
  return std::move(parsed.value);
}

}  // namespace keel::detail
