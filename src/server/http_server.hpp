// server/http_server.hpp — keel's HTTP/1.1 server: routes, keep-alive, whole and streamed
// responses, on an Asio event loop.
//
// One or a few io threads serve every connection. A connection waiting for a slow handler or an
// idle open event stream holds no thread: handlers hand slow work to a worker and answer later
// through their HttpResponder, from any thread.
//
//   keel::server::HttpServer server;                               // 127.0.0.1, ephemeral port
//   server.route("GET", "/health", [](const HttpRequest&, std::shared_ptr<HttpResponder> out) {
//     respond_json(*out, 200, R"({"ok":true})");
//   });
//   KEEL_TRY(server.start());
//   ... server.port() ...
//   server.stop();                                                 // also done by the destructor
//
// Protocol: HTTP/1.1 and 1.0, keep-alive (and Connection: close), Content-Length request bodies
// (Transfer-Encoding is answered 411), Expect: 100-continue, responses with Content-Length or
// chunked streams. The server answers by itself, as JSON errors (http_status.hpp): 400 for a bad
// request line or header, 431 for a head over max_header_bytes, 413 for a body over
// max_body_bytes, 404 for an unknown path, 405 (with Allow) for a known path and another method,
// 500 for a handler that throws or drops its responder. A head that does not arrive within
// header_timeout_ms, or a kept-alive connection idle for keep_alive_idle_ms, is closed.
//
// Thread-safety: route() before start() only; start(), stop() and the accessors from any thread
// but not from inside a handler (stop() joins the io threads).
#pragma once

#include <cstddef>
#include <functional>
#include <cstdint>
#include <memory>
#include <string>

#include "keel/result.hpp"
#include "server/http_request.hpp"
#include "server/http_responder.hpp"
#include "server/http_router.hpp"

namespace keel::server {

struct HttpServerOptions {
  std::string host = "127.0.0.1";                   // address to bind: an IPv4/IPv6 literal, or "localhost" (127.0.0.1)
  uint16_t port = 0;                                // 0: an ephemeral port (see HttpServer::port())
  size_t io_threads = 1;                            // event-loop threads (at least 1)
  size_t max_header_bytes = 16 * 1024;              // request line + headers; more: 431
  size_t max_body_bytes = 4 * 1024 * 1024;          // Content-Length limit; more: 413
  int64_t header_timeout_ms = 10000;                // a request's head and body must arrive within this
  int64_t keep_alive_idle_ms = 60000;               // an idle kept-alive connection is closed after this
  int64_t write_timeout_ms = 30000;                 // one write to a client that takes longer closes it
  size_t max_stream_queue_bytes = 4 * 1024 * 1024;  // unsent response bytes before a slow client is cut off
  size_t max_connections = 1024;                    // open connections; more are closed as soon as accepted
  // Called on each io thread as it starts, before it serves anything: a host marks the threads
  // whose handlers must never block (keel serve: store calls there fail at once during an outage).
  std::function<void()> on_io_thread_start = {};
};

class HttpServer {
 public:
  explicit HttpServer(HttpServerOptions options = {});
  ~HttpServer();  // stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Adds a route (see http_router.hpp for patterns). Only before start(); later calls are ignored.
  void route(std::string method, std::string pattern, HttpHandler handler);

  // Sets the check every request passes before routing, unknown paths included (see
  // access_guard.hpp). Only before start(); a later call is ignored, a second one replaces.
  void guard(RequestGuard guard);

  // Binds, listens and starts the io threads. Errors: kUnavailable when the address cannot be
  // bound (port in use: the message names host:port), kInvalidArgument for a host that is not an
  // IP address or localhost, kFailedPrecondition when called twice. A server is started at most
  // once.
  Status start();

  // The bound port (the ephemeral one when options.port was 0); 0 before start().
  uint16_t port() const;
  const HttpServerOptions& options() const;

  // Open client connections (tests, metrics).
  size_t connection_count() const;

  // Stops accepting, closes every connection (open streams get their on_close) and joins the io
  // threads. Idempotent; returns promptly whatever the clients do (handlers must be quick).
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace keel::server
