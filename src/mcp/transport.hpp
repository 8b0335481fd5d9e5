// mcp/transport.hpp — how an MCP client exchanges JSON-RPC messages with one server: a spawned
// process over stdio, Streamable HTTP, or the legacy HTTP+SSE transport. The client (McpClient)
// owns request ids, pending requests and the protocol; a transport only moves whole messages.
//
// Thread-safety: send() may be called from several threads at once (parallel tool calls to one
// server); callbacks may run on a transport thread or on the thread inside send(), never while a
// transport lock is held, so a callback may call send() (to answer a server request).
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"

namespace keel::mcp {

// What a transport reports back to the client.
struct TransportCallbacks {
  // One JSON-RPC message from the server (an object; a batch array is delivered element by element).
  std::function<void(nlohmann::json message)> on_message;
  // Something the server sent that is not a JSON-RPC message (a non-JSON stdout line, a bad SSE
  // data field): reported, never guessed at. `detail` is a short description with an excerpt.
  std::function<void(std::string detail)> on_garbage;
  // The connection ended for good (process exited, listen stream closed and not resumable).
  // Called at most once; pending requests fail with this status.
  std::function<void(Status why)> on_closed;
  // A diagnostic line: the server's stderr (stdio), a reconnect notice (HTTP).
  std::function<void(std::string line)> on_log;
};

// Options of one send().
struct SendOptions {
  // A request: how long its response may take; a notification or response: how long the write may take.
  std::chrono::milliseconds timeout{60000};
  std::stop_token stop;  // a stop request ends send() promptly with kCancelled
  // Set for a request: true while its response has not been delivered through on_message yet.
  // HTTP transports keep reading (and resume a dropped stream with Last-Event-ID) while it is true.
  std::function<bool()> awaiting_response;
  // HTTP: more header lines for this message ("Mcp-Param-Region: us-west1"); other transports
  // ignore them.
  std::vector<std::string> headers = {};
};

class Transport {
 public:
  virtual ~Transport() = default;

  // Connects: spawns the process, or checks nothing for HTTP (the first POST is the connection).
  // Called once, before any send(); the callbacks live as long as the transport.
  virtual Status start(TransportCallbacks callbacks, std::chrono::milliseconds timeout) = 0;

  // Sends one message (request, notification or response).
  // stdio: returns once written. Streamable HTTP: POSTs it and, for a request, delivers the
  // messages of the response body (JSON or an SSE stream) through on_message before returning,
  // resuming the stream with GET + Last-Event-ID after the server's `retry` delay while
  // awaiting_response() is true. Errors: kUnavailable (the server is gone or refused the
  // connection; HTTP 404 of an expired session), kDeadlineExceeded, kCancelled, kInvalidArgument
  // (HTTP 4xx, with the server's message), kUnauthenticated (HTTP 401/403).
  virtual Status send(const nlohmann::json& message, const SendOptions& options) = 0;

  // Told by the client after initialize, or before its server/discover probe: the protocol version
  // (HTTP sends it as the MCP-Protocol-Version header on every later request, and for 2026-07-28
  // also the Mcp-Method and Mcp-Name headers mirrored from each request). "" stops sending it.
  // Optional for stdio.
  virtual void set_protocol_version(std::string version) { (void)version; }

  // HTTP: opens the optional GET stream for server-initiated messages on a background thread
  // (a 405 answer means the server offers none; that is not an error). stdio: nothing to do.
  virtual void open_listen_stream() {}

  // Ends the connection: stdio closes stdin, waits up to `grace`, then SIGTERM, then SIGKILL;
  // HTTP sends DELETE with the session id (when there is one) and stops the listen stream.
  // Idempotent; on_closed is not called for a close() the client asked for.
  virtual void close(std::chrono::milliseconds grace) = 0;

  // For messages: "stdio: npx -y @modelcontextprotocol/server-filesystem /tmp", "http: URL".
  virtual std::string describe() const = 0;
};

}  // namespace keel::mcp
