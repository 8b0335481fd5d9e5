// Test helper: a tiny scripted HTTP/1.1 server on 127.0.0.1 (raw POSIX sockets) for the web tools.
//
//   keel::testing::StaticHttpServer server;                 // listens on a free port
//   server.route("/article", keel::testing::html_page("<h1>Hi</h1>"));
//   server.route("/old", keel::testing::redirect_to("/article"));
//   server.route("/slow", keel::testing::with_delay(keel::testing::text_page("text/plain", "late"), 5000));
//   ... fetch server.url("/article") ...
//   EXPECT_EQ(server.requests().back().method, "GET");
//
// Routes match the request target exactly (path and query). An unknown target answers 404. Every
// request is recorded (method, target, headers, body). Connections are kept alive (requests with
// Content-Length bodies; "Expect: 100-continue" is answered), one thread per connection. HEAD
// requests get the head only.
//
// Stopping: stop() (also run by the destructor) stops accepting, wakes every connection, including
// those waiting in a scripted delay, shuts their sockets down and joins every thread; it returns
// promptly whatever the clients do.
//
// Thread-safety: all public members may be called from any thread while the server runs.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/test_http_socket.hpp"

namespace keel::testing {

using StaticHeaders = std::vector<std::pair<std::string, std::string>>;

// One scripted answer.
struct StaticRoute {
  int status = 200;
  std::string reason;        // reason phrase; empty: a standard one
  StaticHeaders headers;     // sent as given, before Content-Length
  std::string body;
  int64_t delay_ms = 0;      // wait before sending anything
  int64_t body_delay_ms = 0; // wait between the head and the body
};

// 200 with `body` as HTML (charset utf-8 unless `content_type` says otherwise).
StaticRoute html_page(std::string body, std::string content_type = "text/html; charset=utf-8");
// 200 with any content type ("" sends no Content-Type header).
StaticRoute text_page(std::string content_type, std::string body);
// A redirect (301, 302, 303, 307 or 308) to `location`.
StaticRoute redirect_to(std::string location, int status = 302);
// `route` answered after waiting `delay_ms`.
StaticRoute with_delay(StaticRoute route, int64_t delay_ms);

// A recorded request (method, target, headers with lowercased names, body).
using RecordedHttpRequest = TestHttpRequest;

class StaticHttpServer {
 public:
  // Binds 127.0.0.1 on a free port and starts accepting; see running().
  StaticHttpServer();
  ~StaticHttpServer();
  StaticHttpServer(const StaticHttpServer&) = delete;
  StaticHttpServer& operator=(const StaticHttpServer&) = delete;

  // False when the socket could not be set up (then port() is 0).
  bool running() const { return listener_.port() != 0; }
  int port() const { return listener_.port(); }
  // "http://127.0.0.1:<port><path>".
  std::string url(std::string_view path = "/") const;

  // Sets (or replaces) the answer for `target` ("/page", "/search?q=x").
  void route(std::string target, StaticRoute response);

  std::vector<RecordedHttpRequest> requests() const;
  size_t request_count() const { return request_count_.load(); }

  // Stops the server (idempotent); see the file comment.
  void stop();

 private:
  void serve(TestHttpConnection& connection);
  StaticRoute find_route(const std::string& target) const;

  mutable std::mutex mutex_;
  std::map<std::string, StaticRoute> routes_;
  std::vector<RecordedHttpRequest> requests_;
  std::atomic<size_t> request_count_{0};
  TestHttpListener listener_;  // last: its threads stop before the members above go away
};

}  // namespace keel::testing
