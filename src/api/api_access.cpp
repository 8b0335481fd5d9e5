#include "api/api_access.hpp"

#include <algorithm>

#include "server/http_status.hpp"

namespace keel::api {
namespace {

// Compares without an early exit, so the time taken says nothing about where a guess went wrong.
bool same_secret(std::string_view given, std::string_view expected) {
  unsigned diff = given.size() == expected.size() ? 0u : 1u;
  for (size_t i = 0; i < given.size(); ++i) {
    diff |= static_cast<unsigned char>(given[i]) ^ static_cast<unsigned char>(expected[i % std::max<size_t>(1, expected.size())]);
  }
  return diff == 0 && !expected.empty();
}

bool origin_allowed(std::string_view origin, const ApiAccess& access) {
  if (origin.empty()) return false;
  return std::any_of(access.cors_origins.begin(), access.cors_origins.end(),
                     [&](const std::string& o) { return o == "*" || o == origin; });
}

}  // namespace

bool admit(const server::HttpRequest& request, server::HttpResponder& responder, const ApiAccess& access,
           bool allow_query_token) {
  if (access.token.empty()) return true;
  std::string_view auth = request.header("authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (auth.size() > kBearer.size() && std::equal(kBearer.begin(), kBearer.end(), auth.begin(), [](char a, char b) {
        return (a | 0x20) == (b | 0x20);
      })) {
    if (same_secret(auth.substr(kBearer.size()), access.token)) return true;
  } else if (allow_query_token) {
    auto q = request.query.find("token");
    if (q != request.query.end() && same_secret(q->second, access.token)) return true;
  }
  server::HttpHeaders headers = cors_headers(request, access);
  headers.emplace_back("WWW-Authenticate", "Bearer");
  respond_api_error(responder, 401, "unauthorized",
                    auth.empty() ? "this server needs a token: send 'Authorization: Bearer <token>'"
                                 : "the token is wrong",
                    std::move(headers));
  return false;
}

server::HttpHeaders cors_headers(const server::HttpRequest& request, const ApiAccess& access) {
  std::string_view origin = request.header("origin");
  if (!origin_allowed(origin, access)) return {};
  return {{"Access-Control-Allow-Origin", std::string(origin)}, {"Vary", "Origin"}};
}

void mount_preflight(server::HttpServer& server, const std::string& prefix, const ApiAccess& access) {
  server.route("OPTIONS", prefix, [access](const server::HttpRequest& request, std::shared_ptr<server::HttpResponder> out) {
    server::HttpHeaders headers = cors_headers(request, access);
    if (headers.empty()) {
      respond_api_error(*out, 403, "forbidden", "cross-origin requests from this origin are not allowed");
      return;
    }
    headers.emplace_back("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS");
    headers.emplace_back("Access-Control-Allow-Headers", "Authorization, Content-Type, Last-Event-ID");
    headers.emplace_back("Access-Control-Max-Age", "600");
    out->respond(204, std::move(headers), "");
  });
}

void respond_api_error(server::HttpResponder& responder, int status, std::string_view code, std::string_view message,
                       server::HttpHeaders headers) {
  server::respond_json(responder, status, server::json_error_body(code, message), std::move(headers));
}

}  // namespace keel::api
