// Test fixture for the OpenAI-compatible endpoint: an HttpServer on 127.0.0.1 with
// mount_openai_endpoint, a TestAgentFactory (profiles "default" and "fast") on a MockLlmServer,
// an in-memory store, a worker pool, and helpers to post requests and read SSE streams.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/openai_endpoint.hpp"
#include "keel/store/sqlite_store.hpp"
#include "server/http_server.hpp"
#include "server/raw_http_client.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"
#include "support/test_agent_factory.hpp"
#include "base/thread_pool.hpp"

namespace keel::testing {

inline constexpr int64_t kCreated = 1700000000;  // the endpoint's pinned clock

// One Server-Sent Event of a response body: a comment line or a data payload.
struct ChunkEvent {
  bool comment = false;
  std::string text;  // the comment (after ": ") or the data (after "data: ")
};

// A streamed reply as it arrived: when its head was read, and each chunk with its arrival time.
struct TimedStream {
  using Clock = std::chrono::steady_clock;
  struct Chunk {
    Clock::time_point at;
    std::string text;
  };
  Clock::time_point head_at;
  std::vector<Chunk> chunks;
  std::string all() const {
    std::string out;
    for (const Chunk& c : chunks) out += c.text;
    return out;
  }
};

// POSTs `body` (JSON) to `path` on 127.0.0.1:`port` and reads the chunked reply as it arrives,
// timing each chunk. The test fails (and the chunks so far come back) when the head is not 200 or
// the stream stalls for 10 s.
inline TimedStream post_and_time_chunks(uint16_t port, std::string_view path, const std::string& body) {
  TimedStream out;
  RawHttpClient client(port);
  if (!client.ok()) {
    ADD_FAILURE() << "cannot connect to 127.0.0.1:" << port;
    return out;
  }
  std::string request = "POST " + std::string(path) + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
  request.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n\r\n").append(body);
  auto head = client.send(request) ? client.read_head(10000) : std::nullopt;
  if (!head || head->status != 200) {
    ADD_FAILURE() << path << " did not answer 200";
    return out;
  }
  out.head_at = TimedStream::Clock::now();
  for (;;) {
    std::optional<std::string> chunk = client.read_chunk(10000);
    if (!chunk) {
      ADD_FAILURE() << "the stream stalled; so far: " << out.all();
      return out;
    }
    if (chunk->empty()) return out;
    out.chunks.push_back({TimedStream::Clock::now(), std::move(*chunk)});
  }
}

// The blocks of an event-stream body (the text between blank lines), in order.
inline std::vector<std::string_view> sse_blocks(std::string_view body) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t end = body.find("\n\n", pos);
    if (end == std::string_view::npos) end = body.size();
    out.push_back(body.substr(pos, end - pos));
    pos = end + 2;
  }
  return out;
}

// One named event of a stream (the Responses and Messages APIs): its `event:` name and its data.
struct NamedEvent {
  std::string name;
  nlohmann::json data;
};

// Splits an event-stream body into named events. Comment blocks (": keel tool ...") are skipped;
// a block of data alone has an empty name; a block it cannot read becomes an event named
// "UNREADABLE" holding the block as a string.
inline std::vector<NamedEvent> parse_named_events(std::string_view body) {
  std::vector<NamedEvent> out;
  for (std::string_view block : sse_blocks(body)) {
    if (block.rfind(": ", 0) == 0) continue;
    NamedEvent e;
    std::string_view data = block;
    const size_t newline = block.find('\n');
    if (block.rfind("event: ", 0) == 0 && newline != std::string_view::npos) {
      e.name = std::string(block.substr(7, newline - 7));
      data = block.substr(newline + 1);
    }
    if (data.rfind("data: ", 0) == 0) {
      e.data = nlohmann::json::parse(data.substr(6), nullptr, false);
    } else {
      e.name = "UNREADABLE";
      e.data = std::string(block);
    }
    out.push_back(std::move(e));
  }
  return out;
}

// Splits an event-stream body into its events.
inline std::vector<ChunkEvent> parse_sse(std::string_view body) {
  std::vector<ChunkEvent> out;
  for (std::string_view block : sse_blocks(body)) {
    ChunkEvent e;
    if (block.rfind(": ", 0) == 0) {
      e.comment = true;
      e.text = std::string(block.substr(2));
    } else if (block.rfind("data: ", 0) == 0) {
      e.text = std::string(block.substr(6));
    } else {
      e.text = "UNEXPECTED ";
      e.text.append(block);
    }
    out.push_back(std::move(e));
  }
  return out;
}

// A tool call as the mock model sends it.
inline ToolCall call(std::string id, std::string name, std::string arguments) {
  ToolCall c;
  c.id = std::move(id);
  c.name = std::move(name);
  c.arguments = std::move(arguments);
  return c;
}

inline ModelReply reply(std::string text, std::vector<ToolCall> calls = {}, Usage usage = {10, 5}) {
  ModelReply r;
  r.text = std::move(text);
  r.tool_calls = std::move(calls);
  r.usage = usage;
  return r;
}

class OpenAiEndpointFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("notes.txt", "remember the milk\n");
    StoreOptions options;
    options.path = ":memory:";
    auto store = open_sqlite_store(options);
    ASSERT_TRUE(store.ok()) << store.status().to_string();
    store_ = std::move(store).value();
    ASSERT_TRUE(mock_.running());
  }

  // Starts the endpoint with `access` and the profiles' approval `policy`.
  void start(api::ApiAccess access = {}, ApprovalPolicy policy = {}) {
    TestAgentFactoryOptions options;
    options.base_url = mock_.base_url();
    options.workspace = dir_.path().string();
    options.store = store_.get();
    options.approvals = std::move(policy);
    options.asker = asker_;
    api::ProfileInfo first;
    first.name = "default";
    first.model = "mock-model";
    first.description = "the mock model";
    first.max_rounds = 4;
    api::ProfileInfo second = first;
    second.name = "fast";
    options.profiles = {first, second};
    factory_ = std::make_unique<TestAgentFactory>(std::move(options));
    detail::ThreadPool::Options pool;
    pool.threads = 2;
    pool.max_threads = 4;
    workers_ = std::make_unique<detail::ThreadPool>(pool);
    http_ = std::make_unique<server::HttpServer>();
    api::install_access_guard(*http_, access);
    mount(access);
    ASSERT_TRUE(http_->start().ok());
  }

  // ask_user's asker for the profiles' agents; null (the default): no ask_user tool.
  std::shared_ptr<UserAsker> asker_;

  // Mounts the endpoints under test on http_: /v1/chat/completions here; fixtures of the other
  // /v1 endpoints mount theirs.
  virtual void mount(const api::ApiAccess& access) {
    ASSERT_TRUE(api::mount_openai_endpoint(*http_, *factory_, *workers_, access, endpoint_options()).ok());
  }
  // The endpoints' options: the clock pinned to kCreated.
  static api::OpenAiEndpointOptions endpoint_options() {
    api::OpenAiEndpointOptions endpoint;
    endpoint.now_s = [] { return kCreated; };
    return endpoint;
  }

  void TearDown() override {
    http_.reset();  // closes connections: open runs are stopped
    workers_.reset();
    factory_.reset();
  }

  // POST /v1/chat/completions with `body` (sent as is) and `extra` header lines.
  std::optional<RawHttpResponse> post(std::string_view body, std::string_view extra = "") {
    std::string headers = "Content-Type: application/json\r\n";
    headers.append(extra);
    return raw_http(http_->port(), "POST", "/v1/chat/completions", headers, body, 20000);
  }
  std::optional<RawHttpResponse> post(const char* body, std::string_view extra = "") {
    return post(std::string_view(body), extra);
  }
  std::optional<RawHttpResponse> post(const nlohmann::json& body, std::string_view extra = "") {
    return post(std::string_view(body.dump()), extra);
  }

  // A request for profile "default" with one user message.
  static nlohmann::json ask(std::string text, bool stream = false) {
    nlohmann::json body = {{"model", "default"},
                           {"messages", nlohmann::json::array({{{"role", "user"}, {"content", std::move(text)}}})}};
    if (stream) body["stream"] = true;
    return body;
  }

  // The messages the mock model got in its `index`-th request.
  nlohmann::json model_messages(size_t index) {
    std::vector<std::string> bodies = mock_.request_bodies();
    if (index >= bodies.size()) return nlohmann::json();
    return nlohmann::json::parse(bodies[index]).at("messages");
  }

  // The first tool message of the mock's `index`-th request (null when there is none). The
  // runtime may append a context note after it.
  nlohmann::json model_tool_message(size_t index) {
    for (const nlohmann::json& m : model_messages(index)) {
      if (m.value("role", "") == "tool") return m;
    }
    return nlohmann::json();
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  MockLlmServer mock_;
  std::unique_ptr<TestAgentFactory> factory_;
  std::unique_ptr<detail::ThreadPool> workers_;
  std::unique_ptr<server::HttpServer> http_;
};

}  // namespace keel::testing
