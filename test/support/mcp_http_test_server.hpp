// Test helper: a scriptable HTTP/1.1 server on 127.0.0.1 for the MCP HTTP client transports.
//
//   keel::testing::McpHttpTestServer server;   // listens on a free port
//   server.set_responder([](const McpRecordedRequest& r) {
//     if (r.method == "GET") return mcp_status_reply(405);
//     return mcp_json_reply(mcp_result(r.message, {{"ok", true}}), {{"Mcp-Session-Id", "s1"}});
//   });
//   ... point a transport at server.url() ...
//   EXPECT_EQ(server.requests().at(1).headers.at("mcp-session-id"), "s1");
//
// Each request is recorded (method, target, headers, body, the parsed JSON body, when it arrived
// and when its reply ended) and answered by the responder: a plain body, or a chunked stream of
// pieces sent after their delays, then optionally pieces a test pushes through a channel while the
// stream is open, then a graceful end, an abrupt drop, or a hold until the client hangs up.
// Connections are kept alive; one thread per connection.
//
// Thread-safety: all members may be called from any thread; the responder runs on connection
// threads, several at once, so it must be thread-safe itself.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/test_http_socket.hpp"

namespace keel::testing {

using McpHeaders = std::vector<std::pair<std::string, std::string>>;

// How a streamed reply ends once its pieces (and its channel) are sent.
enum class McpStreamEnd {
  kFinish,  // the final chunk: a graceful end; the connection stays open for the next request
  kDrop,    // the connection is shut down without the final chunk (a broken stream)
  kHold,    // nothing more is sent; the connection stays open until the client or the server ends it
};

// One piece of a streamed body, sent after waiting `delay_ms`.
struct McpBodyPiece {
  int64_t delay_ms = 0;
  std::string bytes;
};

// Pieces a test pushes into an open streamed reply (messages that depend on other requests, as on
// a legacy SSE stream), and how it ends.
class McpStreamChannel {
 public:
  void push(std::string bytes);
  void end(McpStreamEnd how = McpStreamEnd::kFinish);

  // For the server: waits up to `wait` for a piece (true with `piece` set) or the end (true with
  // `how` set); false when neither came.
  bool next(std::string& piece, std::optional<McpStreamEnd>& how, std::chrono::milliseconds wait);

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> pieces_;
  std::optional<McpStreamEnd> end_;
};

// One scripted answer.
struct McpHttpReply {
  int status = 200;
  McpHeaders headers;   // sent as given (Content-Type included)
  std::string body;     // a plain body (Content-Length), when not streamed
  bool stream = false;  // chunked: `pieces`, then `channel` until it ends, then `end`
  std::vector<McpBodyPiece> pieces;
  std::shared_ptr<McpStreamChannel> channel;  // optional
  McpStreamEnd end = McpStreamEnd::kFinish;   // used when there is no channel
  int64_t delay_ms = 0;                       // wait before the head (ends early if the client hangs up)
};

// A recorded request.
struct McpRecordedRequest {
  std::string method;
  std::string target;                          // path and query, as sent
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;
  nlohmann::json message;                          // the body parsed as JSON; null when empty or not JSON
  std::chrono::steady_clock::time_point received;  // when it had been read whole
  std::chrono::steady_clock::time_point finished;  // when its reply ended (stream closed); zero until then

  // The header's value, or "" when absent.
  std::string header(const std::string& lower_name) const;
};

// 200 application/json with `body`.
McpHttpReply mcp_json_reply(const nlohmann::json& body, McpHeaders headers = {});
// Any status with a plain body.
McpHttpReply mcp_status_reply(int status, std::string body = {}, std::string content_type = "text/plain",
                              McpHeaders headers = {});
// 200 text/event-stream with `pieces`, then `end`.
McpHttpReply mcp_sse_reply(std::vector<McpBodyPiece> pieces, McpStreamEnd end = McpStreamEnd::kFinish);
// One SSE event carrying `message` ("event: message", an optional "id:", the data, a blank line).
std::string mcp_sse_event(const nlohmann::json& message, std::string_view id = {});
// {"jsonrpc":"2.0","id":<request's id>,"result":result}.
nlohmann::json mcp_result(const nlohmann::json& request, nlohmann::json result);

class McpHttpTestServer {
 public:
  using Responder = std::function<McpHttpReply(const McpRecordedRequest&)>;

  // Binds 127.0.0.1 on a free port and starts accepting; see running().
  McpHttpTestServer();
  ~McpHttpTestServer() { stop(); }
  McpHttpTestServer(const McpHttpTestServer&) = delete;
  McpHttpTestServer& operator=(const McpHttpTestServer&) = delete;

  bool running() const { return listener_.port() != 0; }
  int port() const { return listener_.port(); }
  // "http://127.0.0.1:<port><path>".
  std::string url(std::string_view path = "/mcp") const;

  // Answers every request; unset: HTTP 500 "no responder".
  void set_responder(Responder responder);

  std::vector<McpRecordedRequest> requests() const;
  // Waits until `count` requests were recorded; false on timeout.
  bool wait_for_requests(size_t count, std::chrono::milliseconds timeout) const;
  size_t connections_accepted() const { return listener_.connections_accepted(); }

  // Stops the server (idempotent): wakes every connection, holds included, and joins them.
  void stop() { listener_.stop(); }

 private:
  void serve(TestHttpConnection& connection);
  bool stream_body(TestHttpConnection& connection, const McpHttpReply& reply, McpStreamEnd& how);
  void mark_finished(size_t index);

  mutable std::mutex mutex_;
  mutable std::condition_variable recorded_;
  Responder responder_;
  std::vector<McpRecordedRequest> requests_;
  TestHttpListener listener_;  // last: its threads stop before the members above go away
};

}  // namespace keel::testing
