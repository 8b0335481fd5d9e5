// server/host_origin_policy.hpp — which Host and Origin headers a keel HTTP server answers, as
// pure functions: the defence against DNS rebinding and against other web pages.
//
// DNS rebinding: a page on evil.example whose name is re-pointed at 127.0.0.1 makes the browser
// send requests to a local server; they carry "Host: evil.example". A server bound to loopback
// therefore answers only loopback names in Host. A page of another origin that calls the server
// directly carries its own Origin; only the server's own origin (the Origin's host and port are
// the Host header's) and origins the operator lists are accepted.
//
//   HostOriginPolicy p = make_host_origin_policy("127.0.0.1", {}, {"https://app.example"});
//   if (std::string why = check_host(p, req.header("host")); !why.empty()) ... 403 ...
//
// Thread-safety: pure functions and an immutable policy.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace keel::server {

struct HostOriginPolicy {
  // Host names accepted in Host (lowercase, IPv6 in brackets, no port). Empty: any Host.
  std::vector<std::string> hosts;
  // Origins accepted besides the server's own ("https://app.example", lowercase, no trailing
  // slash); "*" accepts any.
  std::vector<std::string> origins;
};

// The policy for a server bound to `bind_host`: `allowed_hosts` when given; else localhost,
// 127.0.0.1 and [::1] when bound to a loopback address; else no Host restriction.
HostOriginPolicy make_host_origin_policy(std::string_view bind_host, const std::vector<std::string>& allowed_hosts,
                                         const std::vector<std::string>& allowed_origins);

// True for 127.0.0.0/8, ::1 and "localhost".
bool is_loopback_host(std::string_view host);

// "LocalHost:8080" -> "localhost", "[::1]:80" -> "[::1]", "127.0.0.1" -> "127.0.0.1".
std::string host_without_port(std::string_view host_header);

// "" when the Host header is accepted; else why not (for a 403 message).
std::string check_host(const HostOriginPolicy& policy, std::string_view host_header);

// "" when a request carrying `origin` may go on: the server's own origin (scheme http or https,
// host and port equal to the Host header's) or one the policy lists. Else why not. "null" and
// non-web schemes are refused.
std::string check_origin(const HostOriginPolicy& policy, std::string_view host_header, std::string_view origin);

// True when `origin` is one the operator listed (or "*" is listed): responses to it carry CORS
// headers. The server's own origin needs none.
bool origin_listed(const HostOriginPolicy& policy, std::string_view origin);

}  // namespace keel::server
