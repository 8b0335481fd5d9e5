// server/http_router.hpp — maps (method, path) to a route handler.
//
// A pattern is an exact path ("/mcp") or a prefix ending in '*' ("/static/*" matches "/static/"
// and everything below it). The most specific pattern wins: an exact match, else the longest
// prefix. When that pattern has no handler for the method, the answer is 405 with the methods it
// has (for the Allow header); when no pattern matches, 404.
//
//   HttpRouter router;
//   router.add("GET", "/health", health_handler);
//   auto m = router.match("POST", "/health");   // m.status == 405, m.allow == "GET"
//
// Thread-safety: add() must not run concurrently with anything; match() is const and may run
// from several threads at once.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "server/http_request.hpp"
#include "server/http_responder.hpp"

namespace keel::server {

// Handles one request on an io thread. It must return quickly: slow work goes to a worker, which
// answers later through the responder. `request` is valid only during the call. A handler that
// throws gets a 500 response.
using HttpHandler = std::function<void(const HttpRequest& request, std::shared_ptr<HttpResponder> responder)>;

// Runs before routing on every request (see HttpServer::guard): answers a refused request itself
// and returns false; true lets the route run.
using RequestGuard = std::function<bool(const HttpRequest& request, HttpResponder& responder)>;

class HttpRouter {
 public:
  // Registers (or replaces) the handler for `method` on `pattern`.
  void add(std::string method, std::string pattern, HttpHandler handler);

  struct Match {
    const HttpHandler* handler = nullptr;  // set when status is 200; owned by the router
    int status = 404;                      // 200, 404 or 405
    std::string allow;                     // 405: the pattern's methods, "GET, POST"
  };
  Match match(std::string_view method, std::string_view path) const;

 private:
  std::map<std::string, std::map<std::string, HttpHandler>> routes_;  // pattern -> method -> handler
};

}  // namespace keel::server
