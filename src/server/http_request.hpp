// server/http_request.hpp — one parsed HTTP/1.1 request as the server hands it to a route handler,
// and the header containers shared by requests and responses.
//
//   server.route("GET", "/items/*", [](const HttpRequest& req, std::shared_ptr<HttpResponder> out) {
//     std::string_view auth = req.header("authorization");   // any case; "" when absent
//     auto limit = req.query.find("limit");                   // "?limit=10" -> "10" (decoded)
//     ...
//   });
//
// Thread-safety: plain values; a handler gets a const reference that is valid only during the call
// (copy what a later response needs).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace keel::server {

// Orders header names ignoring ASCII case, so lookups need no lowercasing.
struct HeaderNameLess {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const;
};

// Request headers by name, compared without case. A header sent several times is kept once, its
// values joined with ", " (the list form RFC 9110 allows for repeatable fields).
using HttpHeaderMap = std::map<std::string, std::string, HeaderNameLess>;

// Response headers, sent in this order. The server sets Content-Length, Transfer-Encoding and
// Connection itself and drops those names here (a "Connection: close" asks it to close afterwards).
using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method;                        // as sent, case-sensitive ("GET", "POST")
  std::string target;                        // request target as sent ("/a%20b?x=1")
  std::string path;                          // the target's path, percent-decoded ("/a b")
  std::map<std::string, std::string> query;  // decoded query parameters ('+' is a space); the last of repeats wins
  HttpHeaderMap headers;
  std::string body;            // the Content-Length body; empty when there is none
  std::string remote_address;  // the client, "127.0.0.1:50412" or "[::1]:50412"
  int version_minor = 1;       // 1 for HTTP/1.1, 0 for HTTP/1.0

  // The header's value, "" when absent.
  std::string_view header(std::string_view name) const;
  bool has_header(std::string_view name) const;
};

}  // namespace keel::server
