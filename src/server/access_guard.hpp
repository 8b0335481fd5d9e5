// server/access_guard.hpp — the checks every request to a keel server passes before any route
// sees it, so no route can forget one: Host (DNS rebinding), Origin and Sec-Fetch-Site (other web
// pages), the bearer token (with a lockout for guessing), and the media type of JSON bodies
// (a browser sends text/plain and form bodies cross-site without asking first).
//
//   AccessGuardOptions o;
//   o.hosts = make_host_origin_policy(http.options().host, {}, cors_origins);
//   o.token = token;                          // "" only when the operator turned auth off
//   o.public_paths = {"/", "/ui/*"};          // the web UI's files: no token (they hold none)
//   o.json_paths = {"/api/*", "/v1/*", "/mcp"};
//   o.query_token_paths = {"/api/*/events"};  // ?token= also counts here
//   o.api_key_paths = {"/v1/*"};              // so does an x-api-key header (Anthropic clients)
//   http.guard(AccessGuard::make(std::move(o)));
//
// In order, each refusal a JSON error {"error":{"code","message"}} (with CORS headers when the
// Origin is one the operator listed), and the route never runs:
//   403 host_not_allowed     Host is not an allowed name
//   403 origin_not_allowed   Origin is neither the server's own nor listed; or no Origin but
//                            Sec-Fetch-Site says another site sent it (except a navigation to a
//                            public path: a link to the web UI)
//   429 too_many_attempts    this address sent too many wrong tokens (Retry-After)
//   401 unauthorized         the token is missing or wrong (OPTIONS and public GETs need none)
//   415 unsupported_media_type  a body on a JSON path that is not application/json
//
// Thread-safety: admit() may run on any io thread at once.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "server/auth_throttle.hpp"
#include "server/host_origin_policy.hpp"
#include "server/http_request.hpp"
#include "server/http_responder.hpp"
#include "server/http_router.hpp"

namespace keel::server {

struct AccessGuardOptions {
  HostOriginPolicy hosts;
  std::string token;                           // required bearer token; empty: none (auth off)
  std::vector<std::string> public_paths;       // GET/HEAD served without a token ('*' matches any run of characters)
  std::vector<std::string> json_paths;         // request bodies must be application/json here
  std::vector<std::string> query_token_paths;  // a `token` query parameter counts as the bearer token here
  std::vector<std::string> api_key_paths;      // an "x-api-key: <token>" header counts as the bearer token here
  std::string token_hint;                      // added to the 401 message: where the token is found
  AuthThrottleOptions throttle;
};

class AccessGuard {
 public:
  static RequestGuard make(AccessGuardOptions options);

  explicit AccessGuard(AccessGuardOptions options);
  bool admit(const HttpRequest& request, HttpResponder& responder);

 private:
  AccessGuardOptions options_;
  AuthThrottle throttle_;
};

// True when `path` matches `pattern`, where '*' stands for any run of characters ("/ui/*",
// "/api/*/events").
bool path_matches(std::string_view pattern, std::string_view path);

}  // namespace keel::server
