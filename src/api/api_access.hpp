// api/api_access.hpp — who may call keel serve, and from which web origins: the one access guard
// every request of the server passes (server/access_guard.hpp), set up for keel serve's routes,
// and the CORS headers of the answers.
//
//   install_access_guard(http, access);                 // before http.start()
//   HttpHeaders h = cors_headers(request, access);      // on each answer
//
// Thread-safety: pure functions over const options.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/auth_throttle.hpp"
#include "server/host_origin_policy.hpp"
#include "server/http_request.hpp"
#include "server/http_responder.hpp"
#include "server/http_server.hpp"

namespace keel::api {

struct ApiAccess {
  std::string token;                       // non-empty: requests need "Authorization: Bearer <token>"
  std::vector<std::string> cors_origins;   // origins allowed to call from a browser; "*" any; empty: CORS off
  std::vector<std::string> allowed_hosts;  // Host names answered besides the loopback ones
  std::string token_hint;                  // where the token is found, for the 401 message
  server::AuthThrottleOptions throttle;    // lockout after repeated wrong tokens
};

// The Host names and origins keel serve answers when bound to `bind_host`: the loopback names
// (when bound to loopback) plus `allowed_hosts`; the server's own origin plus `cors_origins`.
server::HostOriginPolicy host_policy(const ApiAccess& access, std::string_view bind_host);

// Sets `http`'s request guard: Host on every path; Origin / Sec-Fetch-Site on every request; the
// token on every path but the web UI's files ("/", "/ui/*") and preflights, also as a `token`
// query parameter on event streams (EventSource cannot send headers) and as an `x-api-key`
// header on /v1 (Anthropic clients); application/json bodies on /api, /v1 and /agui (/mcp checks
// its own). Call once, before the server starts.
void install_access_guard(server::HttpServer& http, const ApiAccess& access);

// Access-Control-Allow-Origin (and Vary) for an allowed Origin; empty otherwise.
server::HttpHeaders cors_headers(const server::HttpRequest& request, const ApiAccess& access);

// Answers CORS preflights (OPTIONS) on `prefix` (a route pattern: "/api/*", "/api/sessions"): 204 with the allowed methods and
// headers (Authorization, Content-Type, Last-Event-ID, then `extra_headers`, a comma-separated
// list) for an allowed origin, 403 otherwise.
void mount_preflight(server::HttpServer& server, const std::string& prefix, const ApiAccess& access,
                     std::string_view extra_headers = {});

// Sends {"error":{"code":code,"message":message}} with `status` and `headers`.
void respond_api_error(server::HttpResponder& responder, int status, std::string_view code, std::string_view message,
                       server::HttpHeaders headers = {});

}  // namespace keel::api
