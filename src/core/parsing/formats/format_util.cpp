#include "core/parsing/formats/format_util.hpp"

#include <algorithm>

#include "core/parsing/json/json_repair.hpp"
#include "core/parsing/json/json_scan.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {

size_t json_extent(std::string_view s, size_t pos) {
  long depth = 0;
  for (size_t i = pos; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      i = json_string_end(s, i) - 1;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

const ToolSpec* find_tool(std::span<const ToolSpec> tools, std::string_view name) {
  auto it = std::find_if(tools.begin(), tools.end(), [&](const ToolSpec& t) { return t.name == name; });
  return it == tools.end() ? nullptr : &*it;
}

void ParameterTypes::read() {
  if (read_ || spec_ == nullptr) return;
  read_ = true;
  const std::string_view text = spec_->parameters_schema;
  const StrictJson valid = scan_strict_json(text, &index_);
  const JsonView schema = valid.ok ? JsonView(text.substr(valid.begin, valid.end - valid.begin), &index_) : JsonView();
  if (schema.is_object()) {
    properties_ = schema.find("properties");
    if (properties_ && !properties_->is_object()) properties_.reset();
  }
}

bool ParameterTypes::known() {
  read();
  return properties_.has_value();
}

bool ParameterTypes::declared(std::string_view param) {
  read();
  return properties_ && properties_->find(param).has_value();
}

std::string_view ParameterTypes::of(std::string_view param) {
  nullable_ = false;
  read();
  if (!properties_) return {};
  auto p = properties_->find(param);
  if (!p || !p->is_object()) return {};
  auto name = [&](JsonView t) -> std::string_view {
    const std::string_view raw = t.raw().substr(1, t.raw().size() - 2);
    if (raw.find('\\') == std::string_view::npos) return raw;
    decoded_ = t.str();
    return decoded_;
  };
  // The first non-null type of a list of type names, or of a list of {"type": ...} alternatives.
  auto first_of = [&](JsonView list, bool alternatives) -> std::string_view {
    std::string_view found;
    JsonView::Items it = list.items();
    JsonView key, t;
    while (it.next(key, t)) {
      if (alternatives) {
        if (!t.is_object()) continue;
        auto inner = t.find("type");
        if (!inner) continue;
        t = *inner;
      }
      if (!t.is_string()) continue;
      if (t.str_equals("null")) {
        nullable_ = true;
      } else if (found.empty()) {
        found = name(t);
      }
    }
    return found;
  };
  if (auto type = p->find("type")) {
    if (type->is_string()) return name(*type);
    if (type->is_array()) return first_of(*type, false);
    return {};
  }
  for (std::string_view key : {"anyOf", "oneOf"}) {
    if (auto alts = p->find(key); alts && alts->is_array()) return first_of(*alts, true);
  }
  return {};
}

namespace {

bool fits(JsonView v, std::string_view type) {
  if (type == "integer") return v.type() == JsonType::kNumber && json_number_is_integer(v.raw());
  if (type == "number") return v.type() == JsonType::kNumber;
  if (type == "boolean") return v.type() == JsonType::kBoolean;
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "null") return v.is_null();
  return false;
}

// Schemas written by hand use Python's names for the JSON types ("float", "int", "bool", "dict").
std::string_view json_type_name(std::string_view type) {
  if (type == "float" || type == "double") return "number";
  if (type == "int") return "integer";
  if (type == "bool") return "boolean";
  if (type == "dict") return "object";
  if (type == "list") return "array";
  if (type == "str") return "string";
  return type;
}

}  // namespace

void write_typed_parameter(JsonObjectWriter& args, std::string_view raw, ParameterTypes& types,
                           std::string_view param) {
  const std::string_view type = json_type_name(types.of(param));
  if (type == "string" && !types.nullable()) return args.string_value(raw);  // the usual case
  const std::string_view trimmed = trim(raw);
  if (types.nullable() && (trimmed == "null" || trimmed == "None")) return args.raw_value("null");
  if (type == "string") return args.string_value(raw);
  const StrictJson valid = scan_strict_json(trimmed);
  const JsonView parsed = valid.ok ? JsonView(trimmed.substr(valid.begin, valid.end - valid.begin)) : JsonView();
  // JSON null stands for "no value" whatever the declared type (nullable parameters declare it
  // beside their type, which `types` reports without it); a string parameter keeps the text.
  if (valid.ok && (type.empty() ? !parsed.is_string() : fits(parsed, type) || parsed.is_null())) {
    return append_compact_json(args.text(), parsed.raw());
  }
  if (type == "boolean") {
    const std::string lower = lowercase(trimmed);
    if (lower == "true" || lower == "false") return args.raw_value(lower);
  }
  if (type == "object" || type == "array") {  // a Python literal, or a JSON string holding the value
    std::string inner;
    std::string_view candidate = trimmed;
    if (valid.ok && parsed.is_string()) {
      inner = parsed.str();
      candidate = trim(inner);
    }
    const LenientText lenient = parse_json_lenient_text(candidate);
    if (lenient.ok() && fits(lenient.view(), type)) {
      std::string compact;
      lenient.view().append_compact(compact);
      return args.raw_value(compact);
    }
  }
  args.string_value(raw);  // the schema check reports a mismatch to the model
}

void add_call(FormatResult& out, std::string&& name, std::string&& arguments, std::string&& id) {
  if (out.calls.empty()) out.calls.reserve(4);  // parallel calls come in small groups: one allocation
  ToolCall& call = out.calls.emplace_back();
  call.id = std::move(id);
  call.name = std::move(name);
  call.arguments = std::move(arguments);
}

bool add_view_call(FormatResult& out, std::string name, std::optional<JsonView> args, std::string id) {
  if (!args || args->is_null()) {
    add_call(out, std::move(name), "{}", std::move(id));
    return true;
  }
  if (args->is_object()) {  // the usual case: the object as it is, compact
    std::string text;
    args->append_compact(text);
    add_call(out, std::move(name), std::move(text), std::move(id));
    return true;
  }
  ArgumentsText a = unwrap_string_arguments_text(*args);
  if (!a.error.empty()) {
    out.error = "the call to '" + name + "': " + a.error;
    return false;
  }
  for (auto& r : a.repairs) out.repairs.push_back("the call to '" + name + "': " + r);
  add_call(out, std::move(name), std::move(a.text), std::move(id));
  return true;
}

size_t valid_json_at(std::string_view text, size_t pos, LenientText& parsed) {
  parsed.reset();
  const size_t valid_end = scan_json_value(text, pos, &parsed.index);
  if (valid_end != std::string_view::npos) {  // where json_extent() would end, and no repair to look for
    parsed.input = text.substr(pos, valid_end - pos);
    parsed.in_input = true;
    parsed.end = valid_end - pos;
  }
  return valid_end;
}

size_t lenient_json_at(std::string_view text, size_t pos, LenientText& parsed, bool& open) {
  open = false;
  if (const size_t valid_end = valid_json_at(text, pos, parsed); valid_end != std::string_view::npos) return valid_end;
  size_t end = json_extent(text, pos);
  open = end == std::string_view::npos;
  if (open) end = text.size();
  parsed = parse_json_lenient_text(text.substr(pos, end - pos), /*known_invalid=*/true);
  return end;
}

bool parse_payload(std::string_view text, LenientText& parsed, FormatResult& out, std::string_view where) {
  parsed = parse_json_lenient_text(text);
  if (!parsed.ok()) {
    out.error = std::string(where) + ": " + parsed.error;
    return false;
  }
  for (auto& r : parsed.repairs) out.repairs.push_back(prefixed(where, std::move(r)));
  return true;
}

}  // namespace keel::detail
