// net/plain_http_url.hpp — which requests keel's own HTTP/1.1 client carries instead of libcurl:
// plain http:// to an IP address or localhost (the local model servers, MCP servers and agents a
// user runs beside keel), with no proxy named in the environment. Everything else (https, host
// names that need DNS, user names in the URL, proxies) stays with libcurl, which handles it fully.
// Loading libcurl and its thirty libraries costs a run milliseconds and megabytes of memory, and
// each request through it costs more than the bytes on the wire; a local server is where that
// shows most.
//
// Thread-safety: pure functions (proxy_in_environment reads the environment).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace keel::detail {

struct PlainHttpUrl {
  std::string host;  // the address (without brackets for IPv6), or "localhost"
  uint16_t port = 80;
  std::string host_header;  // the Host header's value: the host as written, with its port unless 80
  std::string target;       // the request target: path and query, "/" at least
};

// The parts of `url` when keel's own client can carry it: scheme http, a host that is a dotted
// IPv4 address, a bracketed IPv6 address or "localhost", an optional port, and a path and query
// of printable ASCII without dot segments or a fragment. nullopt for anything else.
std::optional<PlainHttpUrl> plain_http_url(std::string_view url);

// Whether the environment names a proxy for http:// URLs (http_proxy, all_proxy, ALL_PROXY, as
// libcurl reads them), or KEEL_HTTP_CLIENT=libcurl asks for libcurl for everything.
bool plain_http_ruled_out_by_environment();

}  // namespace keel::detail
