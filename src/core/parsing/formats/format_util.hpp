// Helpers shared by the tool-call formats.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/parsing/json/json_repair.hpp"
#include "core/parsing/json/json_view.hpp"
#include "keel/core/tool_call_format.hpp"
#include "keel/tool_spec.hpp"

namespace keel::detail {

// End (exclusive) of the balanced JSON object/array starting at text[pos] ('{' or '['), skipping
// strings; npos when it is not closed before the end. Linear.
size_t json_extent(std::string_view text, size_t pos);

// The registered tool called `name`, or nullptr.
const ToolSpec* find_tool(std::span<const ToolSpec> tools, std::string_view name);

// The declared JSON types of one tool's parameters, read from its JSON Schema (validated and
// indexed once, when the first parameter is looked up). Not copyable: its views read its index.
class ParameterTypes {
 public:
  ParameterTypes(std::span<const ToolSpec> tools, std::string_view tool) : spec_(find_tool(tools, tool)) {}
  ParameterTypes(const ParameterTypes&) = delete;
  ParameterTypes& operator=(const ParameterTypes&) = delete;
  // The declared type of `param` ("integer", "string", ...), or "" when unknown; valid until the
  // next call. A type given as a list, or as "anyOf"/"oneOf" alternatives, is the first one that
  // is not "null"; nullable() then says whether "null" was among them.
  std::string_view of(std::string_view param);
  bool nullable() const { return nullable_; }
  // Whether the tool's schema lists parameters, and whether `param` is one of them.
  bool known();
  bool declared(std::string_view param);
  // The JSON Schema of `param` (an object), for formats that write nested values element by
  // element and type each one by the schema below it; valid as long as this object.
  std::optional<JsonView> schema_of(std::string_view param);

 private:
  void read();

  const ToolSpec* spec_;
  bool read_ = false;
  bool nullable_ = false;
  JsonIndex index_;  // the schema's
  std::optional<JsonView> properties_;
  std::string decoded_;  // a type name that held an escape
};

// The declared JSON type of a value whose schema is `schema` (as ParameterTypes::of() reads a
// parameter's): the first type that is not "null", from "type" or from "anyOf"/"oneOf"
// alternatives; "" when none is declared. `nullable` says whether "null" was among them;
// `decoded` holds a type name written with an escape.
std::string_view schema_type(JsonView schema, bool& nullable, std::string& decoded);

// The JSON Schema name of a declared type: schemas written by hand use Python's names for the
// JSON types ("float", "int", "bool", "dict", "list", "str"). (Inline: it runs for every value.)
inline std::string_view canonical_type_name(std::string_view type) {
  switch (type.size()) {
    case 3:
      return type == "int" ? "integer" : type == "str" ? "string" : type;
    case 4:
      return type == "bool" ? "boolean" : type == "dict" ? "object" : type == "list" ? "array" : type;
    case 5:
      return type == "float" ? "number" : type;
    case 6:
      return type == "double" ? "number" : type;
    default:
      return type;
  }
}

// Appends `raw` to `out` as a JSON value of the declared `type` (see write_typed_parameter);
// false when it became a string holding ill-formed UTF-8.
bool append_typed_value(std::string& out, std::string_view raw, std::string_view type, bool nullable);

// Appends the raw (untyped) value of parameter `param` to `args` (after its key), typed by the
// tool's JSON Schema: integer, number, boolean, null, object and array values are written as the
// JSON they are when they fit the declared type; strings stay strings. An object or array written
// as a Python literal ({'k': 'v'}, True), or as a JSON string holding one, is read as that value;
// null (or None for a nullable parameter) is null for any declared type but string. Without a
// schema for the parameter, JSON-looking values are taken as JSON and anything else is a string.
void write_typed_parameter(JsonObjectWriter& args, std::string_view raw, ParameterTypes& types, std::string_view param);

// Appends a call whose `arguments` are JSON object text (the strings are moved into it).
void add_call(FormatResult& out, std::string&& name, std::string&& arguments, std::string&& id = std::string());

// Calls add(element) for `value` when it is an object, or for each element of it when it is an
// array, until add returns false (a list of calls stops at the first unusable one).
template <class AddCall>
void for_each_call_object(JsonView value, AddCall&& add) {
  if (value.is_object()) {
    add(value);
    return;
  }
  JsonView::Items it = value.items();
  JsonView key, element;
  while (it.next(key, element) && add(element)) {
  }
}

// Appends a call whose arguments are the JSON value `args`: an object, null or absent ({}), or a
// string holding an object (unwrapped, listed as a repair of "the call to 'NAME'"). Anything else
// sets out.error; returns false when out.error is set.
bool add_view_call(FormatResult& out, std::string name, std::optional<JsonView> args, std::string id = {});

// The strictly valid JSON value at text[pos] ('{' or '['), taken into `parsed` (indexed); returns
// its end, or npos when none starts there.
size_t valid_json_at(std::string_view text, size_t pos, LenientText& parsed);

// The JSON value at text[pos] ('{' or '['), parsed leniently into `parsed`: up to where it
// balances, or — left open — to the end of the text (`open`). Returns its end. One pass when the
// value is valid JSON.
size_t lenient_json_at(std::string_view text, size_t pos, LenientText& parsed, bool& open);

// Parses a JSON value leniently (see json_repair.hpp) into `parsed`; on success appends the
// repairs to out.repairs, prefixed with `where` ("call 2: removed a trailing comma"); on failure
// sets out.error to "<where>: <why>" and returns false.
bool parse_payload(std::string_view text, LenientText& parsed, FormatResult& out, std::string_view where);

}  // namespace keel::detail
