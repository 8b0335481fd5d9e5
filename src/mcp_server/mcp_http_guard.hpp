// mcp/mcp_http_guard.hpp — the transport-level checks of the MCP Streamable HTTP endpoint, as pure
// functions: DNS-rebinding protection (Host and Origin), the bearer token, Accept, and the
// MCP-Protocol-Version header.
//
// DNS rebinding: a web page on evil.example.com whose name is re-pointed at 127.0.0.1 can make a
// browser send requests to a local server; they carry "Host: evil.example.com" and
// "Origin: http://evil.example.com". A server bound to loopback therefore accepts only localhost
// names in Host and Origin.
//
// Thread-safety: pure functions and an immutable policy.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace keel::mcp::detail {

// Which Host and Origin headers are accepted. Built once from the endpoint's options.
struct HostPolicy {
  // Host names accepted in Host and in Origin (lowercase, IPv6 in brackets, no port). Empty:
  // any Host, and an Origin only for the host the Host header names (same origin).
  std::vector<std::string> hosts;
  std::vector<std::string> origins;  // exact origins accepted besides ("https://app.example.com")
};

// The policy for a server bound to `bind_host`: `allowed_hosts` when given; else localhost,
// 127.0.0.1 and [::1] when bound to a loopback address; else no host restriction.
HostPolicy make_host_policy(std::string_view bind_host, const std::vector<std::string>& allowed_hosts,
                            const std::vector<std::string>& allowed_origins);

// True for 127.0.0.0/8, ::1 and "localhost".
bool is_loopback_host(std::string_view host);

// "LocalHost:8080" -> "localhost", "[::1]:80" -> "[::1]", "127.0.0.1" -> "127.0.0.1".
std::string host_without_port(std::string_view host_header);

// "" when the request may go on; else why not (for the 403 message).
std::string check_host_and_origin(const HostPolicy& policy, std::string_view host_header, bool has_origin,
                                  std::string_view origin_header);

// True when `authorization` is "Bearer <token>" (scheme in any case) with exactly `token`.
// Takes the same time wherever the two tokens differ.
bool bearer_token_matches(std::string_view authorization, std::string_view token);

// True when the Accept header value admits `media_type` ("application/json"), directly or
// through "*/*" or "application/*".
bool accepts_media_type(std::string_view accept, std::string_view media_type);

// True for the MCP-Protocol-Version values this endpoint speaks: 2025-03-26, 2025-06-18, 2025-11-25.
bool is_supported_protocol_version(std::string_view version);

}  // namespace keel::mcp::detail
