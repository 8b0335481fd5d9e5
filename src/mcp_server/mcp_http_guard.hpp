// mcp/mcp_http_guard.hpp — the MCP-specific header checks of the Streamable HTTP endpoint, as pure
// functions: Accept and the MCP-Protocol-Version header. Host, Origin and the bearer token are
// the server's (server/host_origin_policy.hpp, server/bearer_token.hpp).
//
// Thread-safety: pure functions and an immutable policy.
#pragma once

#include <string>
#include <string_view>

namespace keel::mcp::detail {

// True when the Accept header value admits `media_type` ("application/json"), directly or
// through "*/*" or "application/*".
bool accepts_media_type(std::string_view accept, std::string_view media_type);

// True for the MCP-Protocol-Version values this endpoint speaks: 2025-03-26, 2025-06-18, 2025-11-25.
bool is_supported_protocol_version(std::string_view version);

}  // namespace keel::mcp::detail
