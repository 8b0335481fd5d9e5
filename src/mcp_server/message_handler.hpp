// mcp/message_handler.hpp — the server side of one MCP session, independent of the transport:
// `keel mcp serve` feeds it lines from stdin, the Streamable HTTP endpoint feeds it POST bodies.
//
// Thread-safety: handle() may be called from several threads at once (an HTTP client may send
// requests in parallel; a stdio host runs each request on a worker so a ping is answered while a
// tool runs). `notify` may be called from the thread inside handle() only, before it returns.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stop_token>

namespace keel::mcp {

class MessageHandler {
 public:
  virtual ~MessageHandler() = default;

  // Sends a server-to-client message tied to the request being handled (a progress or logging
  // notification). The HTTP endpoint streams them as SSE events before the response when the
  // client accepts text/event-stream, and drops them otherwise.
  using Notify = std::function<void(const nlohmann::json& message)>;

  // Handles one client message (already parsed; a JSON object). Returns the response of a
  // request (a result or a JSON-RPC error object), nullopt for a notification or a response.
  // Never throws.
  virtual std::optional<nlohmann::json> handle(const nlohmann::json& message, const Notify& notify) = 0;

  // handle() on a transport that knows when the client gave up on the request (the 2026-07-28
  // revision over HTTP: its response stream closed, which the revision defines as cancellation):
  // `cancelled` is requested then, and a call in progress stops as after notifications/cancelled.
  virtual std::optional<nlohmann::json> handle_cancellable(const nlohmann::json& message, const Notify& notify,
                                                           std::stop_token cancelled) {
    (void)cancelled;
    return handle(message, notify);
  }

  // The channel for messages tied to no request (notifications/resources/updated): stdio's
  // output, or the HTTP session's standalone GET stream while one is open. An empty function
  // closes it; messages sent while none is open are dropped. May be called from any thread.
  virtual void set_outbox(Notify outbox) { (void)outbox; }

  // subscriptions/listen of the 2026-07-28 revision on a transport that gives each request its own
  // response stream (HTTP): checks `request`, sends the acknowledgment through `sink`, then each
  // notification the client opted in to (from any thread) until `close` runs. A refused request
  // gets `error` (its JSON-RPC error response) and nothing is sent.
  struct Listen {
    std::function<void()> close;
    std::optional<nlohmann::json> error;
  };
  virtual Listen listen(const nlohmann::json& request, Notify sink) {
    (void)sink;
    Listen refused;
    refused.error = nlohmann::json{{"jsonrpc", "2.0"},
                                   {"id", request.is_object() ? request.value("id", nlohmann::json()) : nlohmann::json()},
                                   {"error", {{"code", -32601}, {"message", "subscriptions/listen is not served here"}}}};
    return refused;
  }
};

// Makes the handler of a new session (HTTP: at each initialize request; stdio: once).
using MessageHandlerFactory = std::function<std::unique_ptr<MessageHandler>()>;

}  // namespace keel::mcp
