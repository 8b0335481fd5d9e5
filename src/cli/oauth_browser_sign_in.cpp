// sign_in_through_browser: a keel HttpServer bound to the redirect URI's loopback address answers
// its path once; any other path is a 404, so a stray request does not end the wait.
#include "cli/oauth_browser_sign_in.hpp"

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>

#include "server/http_server.hpp"
#include "server/http_responder.hpp"

namespace keel::cli {

namespace {

struct LoopbackAddress {
  std::string host;  // as bound: 127.0.0.1, ::1
  std::string authority;
  uint16_t port = 0;
  std::string path;
};

Result<LoopbackAddress> loopback_address(const std::string& uri) {
  const std::string scheme = "http://";
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("the OAuth redirect URI " + uri + " " + why +
                                   "; keel mcp login receives the sign-in on http://127.0.0.1:PORT/PATH");
  };
  if (uri.rfind(scheme, 0) != 0) return bad("is not an http:// URL");
  size_t path_start = uri.find('/', scheme.size());
  LoopbackAddress a;
  a.authority = uri.substr(scheme.size(), path_start == std::string::npos ? std::string::npos : path_start - scheme.size());
  a.path = path_start == std::string::npos ? "/" : uri.substr(path_start);
  if (size_t q = a.path.find_first_of("?#"); q != std::string::npos) a.path.resize(q);
  size_t colon = a.authority.rfind(':');
  if (colon == std::string::npos || a.authority.back() == ']') return bad("names no port");
  std::string host = a.authority.substr(0, colon);
  if (host == "127.0.0.1" || host == "localhost") {
    a.host = "127.0.0.1";
  } else if (host == "[::1]") {
    a.host = "::1";
  } else {
    return bad("is not on this machine (127.0.0.1, localhost or [::1])");
  }
  try {
    int port = std::stoi(a.authority.substr(colon + 1));
    if (port <= 0 || port > 65535) return bad("has no valid port");
    a.port = static_cast<uint16_t>(port);
  } catch (const std::exception&) {
    return bad("has no valid port");
  }
  return a;
}

}  // namespace

Result<std::string> sign_in_through_browser(const std::string& server_name, const std::string& authorization_url,
                                            const std::string& redirect_uri, std::chrono::seconds timeout,
                                            std::stop_token stop) {
  KEEL_ASSIGN_OR_RETURN(LoopbackAddress address, loopback_address(redirect_uri));
  std::mutex mu;
  std::condition_variable_any cv;
  std::optional<std::string> returned;
  server::HttpServerOptions options;
  options.host = address.host;
  options.port = address.port;
  server::HttpServer http(options);
  http.route("GET", address.path, [&](const server::HttpRequest& req, std::shared_ptr<server::HttpResponder> out) {
    out->respond(200, {{"Content-Type", "text/html; charset=utf-8"}, {"Cache-Control", "no-store"}},
                 "<!doctype html><title>keel</title><p>keel received the sign-in for " + server_name +
                     ". You can close this tab.</p>");
    std::lock_guard lock(mu);
    if (!returned) returned = "http://" + address.authority + req.target;
    cv.notify_all();
  });
  if (Status started = http.start(); !started.ok()) {
    return Status::Unavailable("cannot listen on " + redirect_uri + " for the sign-in: " + started.message() +
                               " (set oauth.redirectUri to a free loopback port)");
  }
  std::fprintf(stderr, "keel: to sign in to MCP server '%s', open this URL in a browser:\n\n  %s\n\nkeel: waiting for the "
                       "browser to come back to %s (up to %lld s; Ctrl-C stops)\n",
               server_name.c_str(), authorization_url.c_str(), redirect_uri.c_str(),
               static_cast<long long>(timeout.count()));
  std::unique_lock lock(mu);
  bool came = cv.wait_for(lock, stop, timeout, [&] { return returned.has_value(); });
  if (came) return *returned;
  if (stop.stop_requested()) return Status::Cancelled("the sign-in was stopped");
  return Status::DeadlineExceeded("no browser came back to " + redirect_uri + " within " +
                                  std::to_string(timeout.count()) + " s");
}

}  // namespace keel::cli
