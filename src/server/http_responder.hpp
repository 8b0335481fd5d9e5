// server/http_responder.hpp — how a route handler answers one request, now or later, from any
// thread: a whole response, or a stream of chunks (Server-Sent Events).
//
//   server.route("GET", "/events", [&](const HttpRequest&, std::shared_ptr<HttpResponder> out) {
//     out->start_stream(200, {{"Content-Type", "text/event-stream"}});
//     out->on_close([&] { subscribers.remove(out.get()); });   // the client went away
//     subscribers.add(std::move(out));                        // a worker calls write() later
//   });
//
// Exactly one of respond() or start_stream() is used per request; calls after that (or after the
// connection closed) are ignored. Data is queued and written in order by the server's io thread;
// no call blocks on the network. A responder dropped without answering sends 500, and a stream
// dropped without end() is ended, so a connection never hangs. A responder may outlive the server
// (its calls then do nothing).
//
// Thread-safety: every member may be called from any thread; calls from different threads are
// sent in the order they happen.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "server/http_request.hpp"

namespace keel::server {

class HttpResponder {
 public:
  virtual ~HttpResponder() = default;

  // Sends a whole response with Content-Length framing.
  virtual void respond(int status, HttpHeaders headers, std::string body) = 0;

  // Sends the status and headers of a response whose body follows in write() calls, with chunked
  // transfer encoding (HTTP/1.0 clients: the connection's end ends the body).
  virtual void start_stream(int status, HttpHeaders headers) = 0;

  // Queues a piece of a started stream (empty pieces are skipped). Returns false when the
  // connection is gone or the client fell so far behind that its queue passed the server's
  // max_stream_queue_bytes; it is then disconnected and on_close runs.
  virtual bool write(std::string chunk) = 0;

  // Ends a started stream; the connection then serves the next request (keep-alive).
  virtual void end() = 0;

  // Registers the callback run once if the connection closes before the response has been fully
  // sent (client went away, timeout, slow client, server stop); it runs on an io thread and must
  // be quick. Registered after the close, it runs at once on the caller's thread. Replaces an
  // earlier callback; it is released (not run) once the response is complete.
  virtual void on_close(std::function<void()> callback) = 0;

  // True once the connection is closed (nothing sent now reaches the client).
  virtual bool closed() const = 0;
};

// Sends `body` as application/json.
void respond_json(HttpResponder& responder, int status, std::string body, HttpHeaders headers = {});

// Sends the JSON error body of http_status.hpp, its code picked from `status`.
void respond_error(HttpResponder& responder, int status, std::string_view message, HttpHeaders headers = {});

}  // namespace keel::server
