// Helpers shared by the tool-call formats.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "keel/core/tool_call_format.hpp"
#include "keel/tool_spec.hpp"

namespace keel::detail {

// End (exclusive) of the balanced JSON object/array starting at text[pos] ('{' or '['), skipping
// strings; npos when it is not closed before the end. Linear.
size_t json_extent(std::string_view text, size_t pos);

// The registered tool called `name`, or nullptr.
const ToolSpec* find_tool(std::span<const ToolSpec> tools, std::string_view name);

// A raw (untyped) parameter value, typed by the tool's JSON Schema for `param`: integer, number,
// boolean, null, object and array values are parsed as JSON when they fit the declared type;
// strings stay strings. Without a schema for the parameter, JSON-looking values are parsed and
// anything else is a string.
nlohmann::json typed_parameter(std::string_view raw, std::span<const ToolSpec> tools, std::string_view tool,
                               std::string_view param);

// Appends a call with `arguments` (must be an object; anything else records an error in `out`).
void add_call(FormatResult& out, std::string name, const nlohmann::json& arguments, std::string id = {});

// Parses a JSON value leniently (see json_repair.hpp); on success appends the repairs to
// out.repairs, prefixed with `where` ("call 2: removed a trailing comma"); on failure sets
// out.error to "<where>: <why>" and returns nullopt.
std::optional<nlohmann::json> parse_payload(std::string_view text, FormatResult& out, std::string_view where);

}  // namespace keel::detail
