// mcp/mcp_param_headers.hpp — the request headers MCP 2026-07-28 mirrors from the body over
// Streamable HTTP, so intermediaries can route without parsing it: Mcp-Method, Mcp-Name, and
// Mcp-Param-{Name} for each tool argument whose schema property carries `x-mcp-header`.
// Specification: https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keel/result.hpp"

namespace keel::mcp {

// A header value as the revision carries it: the text itself when it is plain visible ASCII (with
// inner spaces) and does not look like the sentinel, else `=?base64?{Base64 of the UTF-8}?=`.
std::string mirrored_header_value(const std::string& text);

// Whether a tool's inputSchema annotates its parameters validly: each `x-mcp-header` a
// non-empty HTTP token, unique ignoring case, on a string, integer or boolean property reached
// from the root through `properties` alone. InvalidArgument naming the problem otherwise (the
// client then leaves the tool out, as the revision requires).
Status check_param_annotations(const nlohmann::json& input_schema);

// The `Mcp-Param-{Name}: value` header lines for a call of a tool with `input_schema` and
// `arguments`: one per annotated property that has a non-null value.
std::vector<std::string> param_header_lines(const nlohmann::json& input_schema, const nlohmann::json& arguments);

// The standard header lines of a request: Mcp-Method, and Mcp-Name for tools/call and
// prompts/get (params.name) and resources/read (params.uri).
std::vector<std::string> standard_header_lines(const nlohmann::json& message);

}  // namespace keel::mcp
