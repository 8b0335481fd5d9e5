// keel/web_tools.hpp — tools that read the web, behind an SSRF guard.
//
//   http_fetch    {url, method?, headers?, body?}  → {"url","status","reason","headers","body",...}
//                 risk medium, not read-only, not cacheable. Non-2xx statuses are results, not errors.
//   web_fetch     {url, max_chars?}                → the page as readable text (markdown-like: # headings,
//                 - lists, [text](url) links, | tables |, ``` code); read-only, parallel, cacheable.
//   extract_links {url, same_host_only?, limit?}   → {"url","links":[{"url","text"}...]}: absolute http(s)
//                 URLs in document order, de-duplicated; read-only, parallel, cacheable.
//   page_metadata {url}                            → {"title","description","canonical","lang","og",
//                 "twitter","json_ld",...}; read-only, parallel, cacheable.
//
// SSRF guard. Every connection the tools make is checked against the address it is about to
// connect to, after DNS resolution, for the first request and for every redirect hop (redirects
// are followed by keel itself, at most max_redirects). Refused unless listed in `allowed`:
// loopback, unspecified, private (RFC 1918, fc00::/7), link-local, CGNAT (100.64/10), multicast,
// broadcast, reserved and documentation ranges, their IPv4-mapped/-compatible, NAT64 and 6to4
// IPv6 forms, and cloud metadata endpoints (169.254.169.254, fd00:ec2::254; the host names
// metadata.google.internal and metadata are refused by name). Only http and https are spoken, and
// proxies from the environment (http_proxy, ...) are ignored: through a proxy the address
// connected to would be the proxy's, so the guard could not see where a request really goes.
// A refusal is a kPermissionDenied result naming the host, the address and the reason.
//
// Errors (tool results, never exceptions): kInvalidArgument for a bad URL, scheme or header;
// kPermissionDenied for a refused address; kDeadlineExceeded when timeout_ms passes; kCancelled
// when the call's stop token fires; kUnavailable for connection and TLS failures.
//
//   keel::WebToolOptions web;
//   web.allowed = {"10.20.0.0/16"};          // an internal network the agent may read
//   KEEL_TRY(keel::register_web_tools(registry, web));
//
// Thread-safety: register_web_tools() follows ToolRegistry::add()'s rules; the tools may run on
// any thread, several at once.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "keel/result.hpp"
#include "keel/tool_registry.hpp"

namespace keel {

struct WebToolOptions {
  // Destinations that bypass the SSRF guard: IP literals ("127.0.0.1", "::1"), CIDR blocks
  // ("10.0.0.0/8", "fd00::/8") or host names ("intranet.example", matched exactly, any case; the
  // name is then trusted whatever it resolves to). Empty: nothing bypasses the guard.
  std::vector<std::string> allowed;
  // Most bytes of a response body web_fetch, extract_links and page_metadata read (after
  // decompression); a longer page is cut and only its start is parsed, with a note.
  size_t max_response_bytes = 5 * 1024 * 1024;
  // Most bytes of a response body http_fetch returns (longer is cut, with a note); also the byte
  // budget for page_metadata's JSON-LD blocks.
  size_t max_output_bytes = 64 * 1024;
  // Whole request, every redirect hop included, in milliseconds; >= 1.
  int timeout_ms = 30000;
  // Connection setup (DNS, TCP, TLS) of each hop, in milliseconds; capped by what is left of
  // timeout_ms; >= 1.
  int connect_timeout_ms = 10000;
  // Redirects followed before a request fails; 0 disables following (a 3xx is then returned by
  // http_fetch and is an error for the other tools).
  int max_redirects = 5;
  // User-Agent header sent unless a call sets its own; empty: "keel/<version>".
  std::string user_agent;
  // web_fetch's text budget in characters (code points) when the call gives no max_chars.
  size_t web_fetch_max_chars = 20000;
  // The largest max_chars a web_fetch call may ask for.
  size_t web_fetch_max_chars_limit = 200000;
  // extract_links: links returned when the call gives no limit, and the largest limit allowed.
  size_t links_default_limit = 200;
  size_t links_max_limit = 2000;
  // Register http_fetch (the only web tool that can change things elsewhere, via POST/PUT/...).
  bool enable_http_fetch = true;
  // Test seam, and a way to pin names: "host:port:address[,address...]" entries that replace DNS
  // for that host and port (libcurl's CURLOPT_RESOLVE format). The guard checks the addresses
  // given here like any resolved address. Empty in normal use.
  std::vector<std::string> resolve_overrides;
};

// Registers http_fetch (when enabled), web_fetch, extract_links and page_metadata.
// InvalidArgument when an `allowed` entry is not an IP address, CIDR block or host name, when a
// resolve_overrides entry is malformed, or when a limit is out of range (timeout_ms or
// connect_timeout_ms < 1, max_redirects < 0, a zero byte or character budget); nothing is
// registered then. An error from ToolRegistry::add (e.g. a name already taken) is returned as is,
// with the tools before it registered.
Status register_web_tools(ToolRegistry& registry, const WebToolOptions& options);

}  // namespace keel
