#include "api/api_access.hpp"

#include <algorithm>

#include "server/access_guard.hpp"
#include "server/host_origin_policy.hpp"
#include "server/http_status.hpp"

namespace keel::api {

server::HostOriginPolicy host_policy(const ApiAccess& access, std::string_view bind_host) {
  server::HostOriginPolicy policy = server::make_host_origin_policy(bind_host, access.allowed_hosts, access.cors_origins);
  if (!access.allowed_hosts.empty() && server::is_loopback_host(bind_host)) {
    for (const char* local : {"localhost", "127.0.0.1", "[::1]"}) policy.hosts.emplace_back(local);
  }
  return policy;
}

void install_access_guard(server::HttpServer& http, const ApiAccess& access) {
  server::AccessGuardOptions o;
  o.hosts = host_policy(access, http.options().host);
  o.token = access.token;
  o.token_hint = access.token_hint;
  o.public_paths = {"/", "/ui/*"};
  o.json_paths = {"/api/*", "/v1/*", "/agui"};  // /mcp answers 415 itself, as a JSON-RPC error
  o.query_token_paths = {"/api/*/events"};
  o.api_key_paths = {"/v1/*"};  // Anthropic clients send the key as x-api-key
  o.throttle = access.throttle;
  http.guard(server::AccessGuard::make(std::move(o)));
}

server::HttpHeaders cors_headers(const server::HttpRequest& request, const ApiAccess& access) {
  std::string_view origin = request.header("origin");
  if (!server::origin_listed(server::make_host_origin_policy("", {}, access.cors_origins), origin)) return {};
  return {{"Access-Control-Allow-Origin", std::string(origin)}, {"Vary", "Origin"}};
}

void mount_preflight(server::HttpServer& server, const std::string& prefix, const ApiAccess& access,
                     std::string_view extra_headers) {
  std::string allowed = "Authorization, Content-Type, Last-Event-ID";
  if (!extra_headers.empty()) allowed.append(", ").append(extra_headers);
  server.route("OPTIONS", prefix, [access, allowed](const server::HttpRequest& request, std::shared_ptr<server::HttpResponder> out) {
    server::HttpHeaders headers = cors_headers(request, access);
    if (headers.empty()) {
      respond_api_error(*out, 403, "forbidden", "cross-origin requests from this origin are not allowed");
      return;
    }
    headers.emplace_back("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
    headers.emplace_back("Access-Control-Allow-Headers", allowed);
    headers.emplace_back("Access-Control-Max-Age", "600");
    out->respond(204, std::move(headers), "");
  });
}

void respond_api_error(server::HttpResponder& responder, int status, std::string_view code, std::string_view message,
                       server::HttpHeaders headers) {
  server::respond_json(responder, status, server::json_error_body(code, message), std::move(headers));
}

}  // namespace keel::api
