// api/api_access.hpp — who may call keel serve's /api and /v1 routes, and from which web origins.
//
//   if (!admit(request, *out, access)) return;   // 401 already sent
//   HttpHeaders h = cors_headers(request, access);
//
// Thread-safety: pure functions over const options.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/http_request.hpp"
#include "server/http_responder.hpp"
#include "server/http_server.hpp"

namespace keel::api {

struct ApiAccess {
  std::string token;                      // non-empty: requests need "Authorization: Bearer <token>"
  std::vector<std::string> cors_origins;  // origins allowed to call from a browser; "*" any; empty: CORS off
};

// True when the request may proceed. Otherwise sends 401 {"error":{"code":"unauthorized",...}}
// (with CORS headers when the origin is allowed) and returns false. With `allow_query_token`, a
// `token` query parameter counts as the bearer token (event streams: EventSource cannot send
// headers). The comparison takes the same time whatever the token's content.
bool admit(const server::HttpRequest& request, server::HttpResponder& responder, const ApiAccess& access,
           bool allow_query_token = false);

// Access-Control-Allow-Origin (and Vary) for an allowed Origin; empty otherwise.
server::HttpHeaders cors_headers(const server::HttpRequest& request, const ApiAccess& access);

// Answers CORS preflights (OPTIONS) on `prefix` (a route pattern: "/api/*", "/api/sessions"): 204 with the allowed methods and
// headers for an allowed origin, 403 otherwise.
void mount_preflight(server::HttpServer& server, const std::string& prefix, const ApiAccess& access);

// Sends {"error":{"code":code,"message":message}} with `status` and `headers`.
void respond_api_error(server::HttpResponder& responder, int status, std::string_view code, std::string_view message,
                       server::HttpHeaders headers = {});

}  // namespace keel::api
