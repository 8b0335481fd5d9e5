// The checks before every route; see access_guard.hpp.
#include "server/access_guard.hpp"

#include "core/text/text_util.hpp"

#include <algorithm>

#include "base/clock.hpp"
#include "server/bearer_token.hpp"
#include "server/http_status.hpp"

namespace keel::server {
namespace {

using keel::detail::lowercase;
using keel::detail::trim;

bool matches_any(const std::vector<std::string>& patterns, std::string_view path) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return path_matches(p, path); });
}

// "application/json; charset=utf-8" -> "application/json".
std::string media_type(std::string_view content_type) {
  return lowercase(trim(content_type.substr(0, content_type.find(';'))));
}

bool is_safe_method(std::string_view method) { return method == "GET" || method == "HEAD" || method == "OPTIONS"; }

int64_t steady_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(detail::SteadyClock::now().time_since_epoch()).count();
}

}  // namespace

bool path_matches(std::string_view pattern, std::string_view path) {
  // Greedy glob with one backtrack point: enough for '*' anywhere.
  size_t p = 0, s = 0, star = std::string_view::npos, mark = 0;
  while (s < path.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = s;
    } else if (p < pattern.size() && pattern[p] == path[s]) {
      ++p;
      ++s;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      s = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

RequestGuard AccessGuard::make(AccessGuardOptions options) {
  auto guard = std::make_shared<AccessGuard>(std::move(options));
  return [guard](const HttpRequest& request, HttpResponder& responder) { return guard->admit(request, responder); };
}

AccessGuard::AccessGuard(AccessGuardOptions options) : options_(std::move(options)), throttle_(options_.throttle) {}

bool AccessGuard::admit(const HttpRequest& request, HttpResponder& responder) {
  const std::string_view origin = request.header("origin");
  HttpHeaders cors;
  if (origin_listed(options_.hosts, origin)) cors = {{"Access-Control-Allow-Origin", std::string(origin)}, {"Vary", "Origin"}};
  auto refuse = [&](int status, std::string_view code, std::string_view message, HttpHeaders extra = {}) {
    HttpHeaders headers = cors;
    headers.insert(headers.end(), extra.begin(), extra.end());
    respond_json(responder, status, json_error_body(code, message), std::move(headers));
    return false;
  };

  if (std::string why = check_host(options_.hosts, request.header("host")); !why.empty()) {
    return refuse(403, "host_not_allowed", why);
  }
  const bool is_public = (request.method == "GET" || request.method == "HEAD") && matches_any(options_.public_paths, request.path);
  if (request.has_header("origin")) {
    if (std::string why = check_origin(options_.hosts, request.header("host"), origin); !why.empty()) {
      return refuse(403, "origin_not_allowed", why);
    }
  } else {
    const std::string site = lowercase(request.header("sec-fetch-site"));
    const bool navigation = lowercase(request.header("sec-fetch-mode")) == "navigate";
    if ((site == "cross-site" || site == "same-site") && !(is_public && navigation)) {
      return refuse(403, "origin_not_allowed",
                    "a request another site's page made (Sec-Fetch-Site: " + site + ") may not call this server");
    }
  }

  if (!options_.token.empty() && request.method != "OPTIONS" && !is_public) {
    const std::string address(address_without_port(request.remote_address));
    const int64_t now = steady_now_ms();
    if (const int64_t wait = throttle_.wait_ms(address, now); wait > 0) {
      const int64_t seconds = (wait + 999) / 1000;
      return refuse(429, "too_many_attempts",
                    "too many wrong tokens from this address; try again in " + std::to_string(seconds) + " s",
                    {{"Retry-After", std::to_string(seconds)}});
    }
    std::string_view given = bearer_credential(request.header("authorization"));
    const bool api_key_path = matches_any(options_.api_key_paths, request.path);
    if (given.empty() && api_key_path) given = trim(request.header("x-api-key"));
    if (given.empty() && matches_any(options_.query_token_paths, request.path)) {
      auto q = request.query.find("token");
      if (q != request.query.end()) given = q->second;
    }
    if (given.empty()) {
      return refuse(401, "unauthorized",
                    std::string("this server needs its token: send 'Authorization: Bearer <token>'") +
                        (api_key_path ? " or 'x-api-key: <token>'" : "") + options_.token_hint,
                    {{"WWW-Authenticate", "Bearer"}});
    }
    if (!same_secret(given, options_.token)) {
      throttle_.failed(address, now);
      return refuse(401, "unauthorized", "the token is wrong", {{"WWW-Authenticate", R"(Bearer error="invalid_token")"}});
    }
  }

  if (!is_safe_method(request.method) && !request.body.empty() && matches_any(options_.json_paths, request.path) &&
      media_type(request.header("content-type")) != "application/json") {
    return refuse(415, "unsupported_media_type",
                  "the body must be sent with 'Content-Type: application/json' (got '" +
                      std::string(request.header("content-type")) + "')");
  }
  return true;
}

}  // namespace keel::server
