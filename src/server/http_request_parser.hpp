// server/http_request_parser.hpp — parses an HTTP/1.1 request head (RFC 9112) into an HttpRequest
// plus the framing facts the connection needs (body length, keep-alive, Expect: 100-continue).
//
// Strict where leniency would be a smuggling or injection risk: exactly one space between the
// parts of the request line, no whitespace before a header's colon, no line folding, no control
// characters in values, Content-Length digits only (repeats must agree), and a request body only
// with Content-Length (Transfer-Encoding is refused with 411). HTTP/1.1 requires Host.
//
//   std::string_view buf = ...;                       // bytes received so far
//   size_t end = find_head_end(buf);                  // 0: keep reading
//   ParsedHead head = parse_request_head(buf.substr(0, end), max_body_bytes);
//   if (head.error_status != 0) -> answer head.error_status with head.error_message, then close
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/text/percent_decode.hpp"
#include "server/http_request.hpp"

namespace keel::server {

struct ParsedHead {
  int error_status = 0;          // 0: parsed; else the status to answer (400, 411, 413, 505)
  std::string error_message;     // for the client: what was wrong, with the offending value
  HttpRequest request;           // method, target, path, query, headers, version (no body yet)
  size_t content_length = 0;     // body bytes that follow the head
  bool keep_alive = true;        // false: close after the response (Connection: close, HTTP/1.0)
  bool expect_continue = false;  // the client waits for "100 Continue" before sending the body
};

// Offset just past the blank line that ends the head at the start of `buffer`, 0 when the head is
// not complete yet.
size_t find_head_end(std::string_view buffer);

// Parses `head` (request line, header lines, blank line). A body longer than `max_body_bytes`
// gives error_status 413.
ParsedHead parse_request_head(std::string_view head, size_t max_body_bytes);

using detail::percent_decode;  // request targets and query strings are decoded with it

// "a=1&b=x%20y&flag" -> {a: "1", b: "x y", flag: ""}. nullopt when an escape is bad.
std::optional<std::map<std::string, std::string>> parse_query(std::string_view query);

// ASCII case-insensitive equality, as HTTP compares header names and tokens.
bool iequals(std::string_view a, std::string_view b);

}  // namespace keel::server
