// Test helper: a scripted OpenAI-compatible HTTP/1.1 server on 127.0.0.1 (raw POSIX sockets).
//
//   keel::testing::MockLlmServer server;           // listens on a random free port
//   server.push(keel::testing::mock_error(429, "slow down", {{"Retry-After", "1"}}));
//   server.push(keel::testing::mock_text("hello"));
//   ... point a client at server.base_url() ...
//   EXPECT_EQ(server.request_count(), 2u);
//
// Each request consumes the next scripted response (or asks the responder, when one is set); an
// empty script answers HTTP 500 {"error":{"message":"mock script exhausted"}}. Connections are
// kept alive (Content-Length request bodies), one thread per connection, and counted so tests can
// assert connection reuse. Every request is recorded.
//
// Thread-safety: all public members may be called from any thread while the server runs.
#pragma once

#include <atomic>
#include <cstdint>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "keel/model_io.hpp"
#include "support/test_http_socket.hpp"

namespace keel::testing {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// One scripted answer.
struct MockResponse {
  int status = 200;
  std::string content_type = "application/json";  // empty: no Content-Type header
  HeaderList headers;                              // extra response headers
  std::string body;                                // non-streamed body (Content-Length)
  bool stream = false;               // chunked transfer: `chunks` are sent one HTTP chunk each
  std::vector<std::string> chunks;   // raw bytes of each chunk (e.g. "data: {...}\n\n")
  int64_t delay_ms = 0;              // wait before sending anything
  int64_t chunk_delay_ms = 0;        // wait before each chunk after the first
  bool drop = false;                 // close the connection without any response
  bool truncate = false;             // streams: close after the chunks, without the final chunk
};

// A recorded request.
struct MockRequest {
  std::string method;
  std::string path;
  std::map<std::string, std::string> headers;  // names lowercased
  std::string body;
};

// A non-streamed chat.completion carrying `reply` (text, reasoning, tool calls, usage, finish).
// finish_reason defaults to "tool_calls" when there are calls, else "stop"; model to "mock-model".
MockResponse mock_completion(const ModelReply& reply);
// A non-streamed completion with just text (usage 10 prompt / 5 completion tokens).
MockResponse mock_text(std::string text);
// A non-streamed completion asking for tool calls (arguments sent as JSON strings).
MockResponse mock_tool_calls(std::vector<ToolCall> calls, std::string text = {});

// The SSE chunks of a streamed completion: a role chunk, reasoning and text deltas of
// `piece_bytes` bytes, each tool call as an id+name delta then its arguments in pieces, a
// finish_reason chunk, a usage chunk (no choices) and "data: [DONE]".
std::vector<std::string> stream_chunks(const ModelReply& reply, size_t piece_bytes = 4);
// A streamed (text/event-stream, chunked) completion of `reply`.
MockResponse mock_stream(const ModelReply& reply, size_t piece_bytes = 4);
// A stream that sends a role chunk and `text` in pieces, then closes: no finish_reason, no [DONE].
MockResponse mock_truncated_stream(std::string text);
// A stream of `reply` with `chunk_delay_ms` between chunks.
MockResponse mock_slow_stream(const ModelReply& reply, int64_t chunk_delay_ms);
// A stream whose chunks are given verbatim (for malformed or unusual streams).
MockResponse mock_sse(std::vector<std::string> raw_chunks);

// An OpenAI-style error: {"error":{"message":...,"type":...,"code":...}} with `status`.
MockResponse mock_error(int status, std::string message, HeaderList headers = {});
// Any status, body and content type.
MockResponse mock_raw(int status, std::string body, std::string content_type = "application/json",
                      HeaderList headers = {});
// HTTP 200 with a body that is not JSON.
MockResponse mock_invalid_json();
// Close the connection without answering.
MockResponse mock_drop();
// `response` sent after waiting `delay_ms`.
MockResponse with_delay(MockResponse response, int64_t delay_ms);

// For responders that script one tool round per request of the user: the latest user message of
// an OpenAI chat request body (keel's own "[keel ...]" notes skipped) and whether a tool result
// has come since it.
struct LatestUserRequest {
  std::string task;
  bool tool_answered = false;
};
LatestUserRequest latest_user_request(const std::string& request_body);

// A responder's reply for one tool round per request: a parse_json call (id "c_TASK") for a new
// request, then the answer "done:TASK" once its result has come; each sent after `delay_ms`.
MockResponse parse_json_round(const std::string& request_body, int64_t delay_ms);

class MockLlmServer {
 public:
  using Responder = std::function<MockResponse(const std::string& request_body)>;

  // Binds 127.0.0.1 on a free port and starts accepting; see running().
  MockLlmServer();
  // Stops accepting, wakes every connection (scripted waits included) and joins all threads.
  ~MockLlmServer();
  MockLlmServer(const MockLlmServer&) = delete;
  MockLlmServer& operator=(const MockLlmServer&) = delete;

  // False when the socket could not be set up (then port() is 0).
  bool running() const { return listener_.port() != 0; }
  int port() const { return listener_.port(); }
  // "http://127.0.0.1:<port>/v1".
  std::string base_url() const;

  // Appends a scripted response.
  void push(MockResponse response);
  // When set, answers every request instead of the script. It may run on several connection
  // threads at once, so it must be thread-safe. An empty function restores the script.
  void set_responder(Responder responder);
  // Whether requests are kept for requests()/request_bodies() (on by default; benchmarks turn it
  // off to keep memory flat). request_count() counts either way.
  void set_record_requests(bool record);

  std::vector<MockRequest> requests() const;
  std::vector<std::string> request_bodies() const;
  size_t request_count() const { return request_count_.load(); }
  size_t connections_accepted() const { return listener_.connections_accepted(); }
  // Scripted responses not consumed yet.
  size_t pending() const;
  // When each chunk of the streamed responses so far was written to its socket, in order.
  std::vector<std::chrono::steady_clock::time_point> chunk_times() const;

 private:
  void serve(TestHttpConnection& connection);
  MockResponse next_response(const std::string& body);
  void record(MockRequest request);
  void note_chunks_sent(size_t count);
  std::vector<std::chrono::steady_clock::time_point> chunk_times_;

  mutable std::mutex mutex_;
  std::deque<MockResponse> script_;
  Responder responder_;
  bool record_ = true;
  std::vector<MockRequest> requests_;
  std::atomic<size_t> request_count_{0};
  TestHttpListener listener_;  // last: its threads stop before the members above go away
};

}  // namespace keel::testing
