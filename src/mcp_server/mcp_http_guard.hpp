// mcp/mcp_http_guard.hpp — the MCP-specific header checks of the Streamable HTTP endpoint, as pure
// functions: Accept and the MCP-Protocol-Version header. Host, Origin and the bearer token are
// the server's (server/host_origin_policy.hpp, server/bearer_token.hpp).
//
// Thread-safety: pure functions and an immutable policy.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace keel::mcp::detail {

// True when the Accept header value admits `media_type` ("application/json"), directly or
// through "*/*" or "application/*".
bool accepts_media_type(std::string_view accept, std::string_view media_type);

// True for the MCP-Protocol-Version values this endpoint speaks: 2025-03-26, 2025-06-18, 2025-11-25.
bool is_supported_protocol_version(std::string_view version);

// True when a POST without a session is the 2026-07-28 revision's: it names a protocol version
// (the MCP-Protocol-Version header, `has_version`/`version`, or params._meta), and is not
// handshake-era traffic (a handshake version in the header and none in _meta: an initialize, or
// a request that lost its session id).
bool is_stateless_request(const nlohmann::json& message, bool has_version, std::string_view version);

// The HTTP status of a stateless answer: 404 for a method the server does not serve, 400 for the
// revision's own refusals (header mismatch, missing capability, unsupported version), else 200.
int stateless_status(const nlohmann::json& response);

// The request headers MCP 2026-07-28 mirrors from the body (Mcp-Method, Mcp-Name) as received;
// nullopt for a header that was not sent.
struct MirroredHeaders {
  std::optional<std::string> method;
  std::optional<std::string> name;
};

// Why the mirrored headers do not match the body of a request for `method` with `params` (a
// missing Mcp-Method, or a missing Mcp-Name for tools/call, prompts/get and resources/read; a
// value that differs from the body's, after decoding the `=?base64?...?=` form; a value with
// characters a header may not carry), or "" when they match. Intermediaries route on these
// headers, so a mismatch is refused rather than served from the body.
std::string mirrored_header_mismatch(const std::string& method, const nlohmann::json& params,
                                     const MirroredHeaders& headers);

}  // namespace keel::mcp::detail
