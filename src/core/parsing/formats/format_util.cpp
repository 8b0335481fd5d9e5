#include "core/parsing/formats/format_util.hpp"

#include <algorithm>
#include <array>

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

namespace {

// A tool's parameters schema as scan_strict_json() read it.
struct ToolSchemaRead {
  bool filled = false;
  std::string text;
  JsonIndex index;
  StrictJson valid;
};

// The schema `text` validated and indexed. The last few read on this thread are kept: every reply
// of a conversation is parsed against the same tools, and a reply often calls a tool again.
const ToolSchemaRead& read_tool_schema(std::string_view text) {
  static constexpr std::size_t kKept = 4;
  thread_local std::array<ToolSchemaRead, kKept> kept;
  thread_local std::size_t next = 0;
  for (const ToolSchemaRead& r : kept) {
    if (r.filled && r.text.size() == text.size() && r.text == text) return r;
  }
  ToolSchemaRead& r = kept[next];
  next = (next + 1) % kKept;
  r.filled = false;  // until read whole (an allocation failure leaves no half entry)
  r.text.assign(text);
  r.valid = scan_strict_json(text, &r.index);
  r.filled = true;
  return r;
}

}  // namespace

void ParameterTypes::read() {
  if (read_ || spec_ == nullptr) return;
  read_ = true;
  const std::string_view text = spec_->parameters_schema;
  const ToolSchemaRead& known = read_tool_schema(text);
  index_ = known.index;
  const StrictJson valid = known.valid;
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

std::optional<JsonView> ParameterTypes::schema_of(std::string_view param) {
  read();
  if (!properties_) return std::nullopt;
  auto p = properties_->find(param);
  if (!p || !p->is_object()) return std::nullopt;
  return p;
}

std::string_view ParameterTypes::of(std::string_view param) {
  nullable_ = false;
  auto p = schema_of(param);
  return p ? schema_type(*p, nullable_, decoded_) : std::string_view();
}

std::string_view schema_type(JsonView schema, bool& nullable, std::string& decoded) {
  nullable = false;
  if (!schema.is_object()) return {};
  auto name = [&](JsonView t) -> std::string_view {
    const std::string_view raw = t.raw().substr(1, t.raw().size() - 2);
    if (raw.find('\\') == std::string_view::npos) return raw;
    decoded = t.str();
    return decoded;
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
        nullable = true;
      } else if (found.empty()) {
        found = name(t);
      }
    }
    return found;
  };
  if (auto type = schema.find("type")) {
    if (type->is_string()) return name(*type);
    if (type->is_array()) return first_of(*type, false);
    return {};
  }
  for (std::string_view key : {"anyOf", "oneOf"}) {
    if (auto alts = schema.find(key); alts && alts->is_array()) return first_of(*alts, true);
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

}  // namespace

bool append_typed_value(std::string& out, std::string_view raw, std::string_view declared, bool nullable) {
  const std::string_view type = canonical_type_name(declared);
  if (type == "string" && !nullable) return append_quoted_json(out, raw);  // the usual case
  const std::string_view trimmed = trim(raw);
  if (nullable && (trimmed == "null" || trimmed == "None")) {
    out.append("null");
    return true;
  }
  if (type == "string") return append_quoted_json(out, raw);
  const StrictJson valid = scan_strict_json(trimmed);
  const JsonView parsed = valid.ok ? JsonView(trimmed.substr(valid.begin, valid.end - valid.begin)) : JsonView();
  // JSON null stands for "no value" whatever the declared type (nullable parameters declare it
  // beside their type, which `types` reports without it); a string parameter keeps the text.
  if (valid.ok && (type.empty() ? !parsed.is_string() : fits(parsed, type) || parsed.is_null())) {
    append_compact_json(out, parsed.raw());
    return true;
  }
  if (type == "boolean") {
    const std::string lower = lowercase(trimmed);
    if (lower == "true" || lower == "false") {
      out.append(lower);
      return true;
    }
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
      lenient.view().append_compact(out);
      return true;
    }
  }
  return append_quoted_json(out, raw);  // the schema check reports a mismatch to the model
}

void write_typed_parameter(JsonObjectWriter& args, std::string_view raw, ParameterTypes& types,
                           std::string_view param) {
  const std::string_view type = types.of(param);
  if (!append_typed_value(args.text(), raw, type, types.nullable())) args.mark_invalid();
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
