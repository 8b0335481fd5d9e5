// OpenAiClient against the mock server: retries, error mapping, broken replies, timeouts and
// cancellation.
#include "keel/openai_client.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "llm/client_test_support.hpp"
#include "support/mock_llm_server.hpp"

namespace keel::testing {
namespace {

using Clock = std::chrono::steady_clock;

CallOptions non_streaming() {
  CallOptions o;
  o.stream = false;
  return o;
}

struct RetryLog {
  struct Entry {
    int attempt;
    ErrorCode code;
    std::string message;
    int64_t delay_ms;
  };
  std::vector<Entry> entries;

  CallOptions options(bool stream = false) {
    CallOptions o;
    o.stream = stream;
    o.on_retry = [this](int attempt, const Status& why, int64_t delay) {
      entries.push_back({attempt, why.code(), why.message(), delay});
    };
    return o;
  }
};

TEST(OpenAiClientErrorsTest, RetryAfterIsHonoured) {
  MockLlmServer server;
  server.push(mock_error(429, "Rate limit reached", {{"Retry-After", "1"}}));
  server.push(mock_text("finally"));
  auto client = make_openai_client(fast_options(server));
  RetryLog log;
  const auto start = Clock::now();
  Result<ModelReply> reply = client->complete(Conversation().request(), log.options());
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->text, "finally");
  ASSERT_EQ(log.entries.size(), 1u);
  EXPECT_EQ(log.entries[0].attempt, 1);
  EXPECT_EQ(log.entries[0].delay_ms, 1000);
  EXPECT_EQ(log.entries[0].code, ErrorCode::kUnavailable);
  EXPECT_NE(log.entries[0].message.find("HTTP 429: Rate limit reached"), std::string::npos);
  EXPECT_GE(elapsed_ms(start), 950);
  EXPECT_EQ(server.request_count(), 2u);
  const std::vector<MockRequest> sent = server.requests();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_FALSE(sent[0].body.empty());
  EXPECT_EQ(sent[1].body, sent[0].body);  // the retry sends the same request again
}

TEST(OpenAiClientErrorsTest, ServerErrorThenStreamedSuccess) {
  MockLlmServer server;
  server.push(mock_error(500, "internal hiccup"));
  ModelReply ok;
  ok.text = "recovered";
  server.push(mock_stream(ok));
  auto client = make_openai_client(fast_options(server));
  RetryLog log;
  Result<ModelReply> reply = client->complete(Conversation().request(), log.options(/*stream=*/true));
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->text, "recovered");
  ASSERT_EQ(log.entries.size(), 1u);
  EXPECT_GE(log.entries[0].delay_ms, 0);
  EXPECT_LE(log.entries[0].delay_ms, 10);  // full jitter within initial_delay_ms
}

TEST(OpenAiClientErrorsTest, RetriesExhaustedKeepTheServerMessage) {
  MockLlmServer server;
  for (int i = 0; i < 3; ++i) server.push(mock_error(503, "model is loading"));
  OpenAiOptions options = fast_options(server);
  options.retry.max_attempts = 3;
  auto client = make_openai_client(options);
  RetryLog log;
  Result<ModelReply> reply = client->complete(Conversation().request(), log.options());
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kUnavailable);
  EXPECT_EQ(reply.status().message(), "gave up after 3 attempts: HTTP 503: model is loading");
  EXPECT_EQ(log.entries.size(), 2u);
  EXPECT_EQ(server.request_count(), 3u);
}

TEST(OpenAiClientErrorsTest, UnauthorizedFailsAtOnce) {
  MockLlmServer server;
  server.push(mock_error(401, "Incorrect API key provided: sk-test."));
  server.push(mock_text("must not be used"));
  auto client = make_openai_client(fast_options(server));
  RetryLog log;
  Result<ModelReply> reply = client->complete(Conversation().request(), log.options(/*stream=*/true));
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kUnauthenticated);
  EXPECT_NE(reply.status().message().find("HTTP 401: Incorrect API key provided"), std::string::npos);
  EXPECT_TRUE(log.entries.empty());
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_EQ(server.pending(), 1u);
}

TEST(OpenAiClientErrorsTest, ClientErrorsMapWithoutRetry) {
  MockLlmServer server;
  server.push(mock_error(400, "messages: field required"));
  server.push(mock_error(403, "not allowed"));
  server.push(mock_raw(404, "404 page not found", "text/plain"));
  auto client = make_openai_client(fast_options(server));
  const CallOptions options = non_streaming();
  Result<ModelReply> r400 = client->complete(Conversation().request(), options);
  Result<ModelReply> r403 = client->complete(Conversation().request(), options);
  Result<ModelReply> r404 = client->complete(Conversation().request(), options);
  EXPECT_EQ(r400.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r400.status().message().find("messages: field required"), std::string::npos);
  EXPECT_EQ(r403.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(r404.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(r404.status().message().find("404 page not found"), std::string::npos);
  EXPECT_EQ(server.request_count(), 3u);
}

TEST(OpenAiClientErrorsTest, DroppedConnectionIsRetried) {
  MockLlmServer server;
  server.push(mock_drop());
  server.push(mock_text("second time lucky"));
  auto client = make_openai_client(fast_options(server));
  RetryLog log;
  Result<ModelReply> reply = client->complete(Conversation().request(), log.options());
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->text, "second time lucky");
  ASSERT_EQ(log.entries.size(), 1u);
  EXPECT_EQ(log.entries[0].code, ErrorCode::kUnavailable);
  EXPECT_EQ(server.connections_accepted(), 2u);
}

TEST(OpenAiClientErrorsTest, TruncatedStreamIsAnErrorNotAPartialAnswer) {
  MockLlmServer server;
  server.push(mock_truncated_stream("This answer is cut"));
  server.push(mock_text("must not be used"));
  auto client = make_openai_client(fast_options(server));
  std::string seen;
  RetryLog log;
  CallOptions options = log.options(/*stream=*/true);
  options.on_text = [&](std::string_view t) { seen += t; };
  Result<ModelReply> reply = client->complete(Conversation().request(), options);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(reply.status().message().find("stream ended before completion"), std::string::npos)
      << reply.status().message();
  EXPECT_FALSE(seen.empty());        // text had reached the caller...
  EXPECT_TRUE(log.entries.empty());  // ...so the attempt is not repeated
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(OpenAiClientErrorsTest, TruncatedStreamBeforeAnyTextIsRetried) {
  MockLlmServer server;
  server.push(mock_truncated_stream(""));
  ModelReply ok;
  ok.text = "complete";
  server.push(mock_stream(ok));
  auto client = make_openai_client(fast_options(server));
  RetryLog log;
  CallOptions options = log.options(/*stream=*/true);
  std::string seen;
  options.on_text = [&](std::string_view t) { seen += t; };
  Result<ModelReply> reply = client->complete(Conversation().request(), options);
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(seen, "complete");
  EXPECT_EQ(log.entries.size(), 1u);
}

TEST(OpenAiClientErrorsTest, InvalidJsonIsAnError) {
  MockLlmServer server;
  server.push(mock_invalid_json());
  server.push(mock_invalid_json());
  OpenAiOptions options = fast_options(server);
  options.retry.max_attempts = 2;
  auto client = make_openai_client(options);
  Result<ModelReply> reply = client->complete(Conversation().request(), non_streaming());
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(reply.status().message().find("gave up after 2 attempts: invalid JSON from server"), std::string::npos)
      << reply.status().message();
}

TEST(OpenAiClientErrorsTest, ErrorEventInStream) {
  MockLlmServer server;
  server.push(mock_sse({"data: {\"error\":{\"message\":\"context length exceeded\",\"code\":400}}\n\n"}));
  auto client = make_openai_client(fast_options(server));
  Result<ModelReply> reply = client->complete(Conversation().request(), CallOptions{});
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(reply.status().message().find("context length exceeded"), std::string::npos);
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(OpenAiClientErrorsTest, StreamIdleTimeout) {
  MockLlmServer server;
  ModelReply slow;
  slow.text = "one two three";
  server.push(mock_slow_stream(slow, 1500));
  OpenAiOptions options = fast_options(server);
  options.stream_idle_timeout_ms = 200;
  auto client = make_openai_client(options);
  const auto start = Clock::now();
  Result<ModelReply> reply = client->complete(Conversation().request(), CallOptions{});
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kDeadlineExceeded) << reply.status().to_string();
  EXPECT_NE(reply.status().message().find("200 ms"), std::string::npos);
  EXPECT_GE(elapsed_ms(start), 190);
  EXPECT_LT(elapsed_ms(start), 1000);
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(OpenAiClientErrorsTest, RequestTimeoutIsNotRetried) {
  MockLlmServer server;
  server.push(with_delay(mock_text("late"), 1500));
  OpenAiOptions options = fast_options(server);
  options.request_timeout_ms = 200;
  auto client = make_openai_client(options);
  Result<ModelReply> reply = client->complete(Conversation().request(), non_streaming());
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kDeadlineExceeded) << reply.status().to_string();
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(OpenAiClientErrorsTest, CallTimeoutBoundsASlowRequest) {
  MockLlmServer server;
  server.push(with_delay(mock_text("late"), 1500));
  auto client = make_openai_client(fast_options(server));
  CallOptions options;
  options.timeout_ms = 250;
  const auto start = Clock::now();
  Result<ModelReply> reply = client->complete(Conversation().request(), options);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kDeadlineExceeded) << reply.status().to_string();
  EXPECT_NE(reply.status().message().find("timeout_ms"), std::string::npos) << reply.status().message();
  EXPECT_LT(elapsed_ms(start), 1000);
}

TEST(OpenAiClientErrorsTest, CallTimeoutEndsRetriesEarly) {
  MockLlmServer server;
  server.push(mock_error(503, "busy", {{"Retry-After", "1"}}));
  server.push(mock_text("too late"));
  auto client = make_openai_client(fast_options(server));
  CallOptions options;
  options.stream = false;
  options.timeout_ms = 300;
  const auto start = Clock::now();
  Result<ModelReply> reply = client->complete(Conversation().request(), options);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kDeadlineExceeded);
  EXPECT_NE(reply.status().message().find("HTTP 503: busy"), std::string::npos) << reply.status().message();
  EXPECT_LT(elapsed_ms(start), 250);  // no pointless wait for a retry that cannot happen in time
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(OpenAiClientErrorsTest, StopCancelsASlowRequestPromptly) {
  MockLlmServer server;
  server.push(with_delay(mock_text("too late"), 3000));
  auto client = make_openai_client(fast_options(server));
  std::stop_source source;
  std::jthread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    source.request_stop();
  });
  CallOptions options;
  options.stop = source.get_token();
  const auto start = Clock::now();
  Result<ModelReply> reply = client->complete(Conversation().request(), options);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kCancelled) << reply.status().to_string();
  EXPECT_LT(elapsed_ms(start), 600);
}

TEST(OpenAiClientErrorsTest, StopInterruptsTheRetryWait) {
  MockLlmServer server;
  server.push(mock_error(429, "later", {{"Retry-After", "30"}}));
  OpenAiOptions options = fast_options(server);
  options.retry.max_delay_ms = 30000;
  auto client = make_openai_client(options);
  std::stop_source source;
  RetryLog log;
  CallOptions call = log.options();
  call.stop = source.get_token();
  std::jthread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    source.request_stop();
  });
  const auto start = Clock::now();
  Result<ModelReply> reply = client->complete(Conversation().request(), call);
  EXPECT_EQ(reply.status().code(), ErrorCode::kCancelled) << reply.status().to_string();
  EXPECT_LT(elapsed_ms(start), 1000);
  ASSERT_EQ(log.entries.size(), 1u);
  EXPECT_EQ(log.entries[0].delay_ms, 30000);
}

TEST(OpenAiClientErrorsTest, RetryAfterIsCappedAtMaxDelay) {
  MockLlmServer server;
  server.push(mock_error(503, "busy", {{"Retry-After", "120"}}));
  server.push(mock_text("ok"));
  OpenAiOptions options = fast_options(server);
  options.retry.max_delay_ms = 50;
  auto client = make_openai_client(options);
  RetryLog log;
  ASSERT_TRUE(client->complete(Conversation().request(), log.options()).ok());
  ASSERT_EQ(log.entries.size(), 1u);
  EXPECT_EQ(log.entries[0].delay_ms, 50);
}

TEST(OpenAiClientErrorsTest, ConnectionRefusedNamesTheServer) {
  int port = 0;
  {
    MockLlmServer closed;  // a port that was free a moment ago and is closed now
    port = closed.port();
  }
  OpenAiOptions options;
  options.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  options.retry.max_attempts = 2;
  options.retry.initial_delay_ms = 5;
  auto client = make_openai_client(options);
  Result<ModelReply> reply = client->complete(Conversation().request(), CallOptions{});
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kUnavailable);
  EXPECT_EQ(reply.status().message(), "gave up after 2 attempts: cannot connect to " + options.base_url +
                                          ": Connection refused");
}

}  // namespace
}  // namespace keel::testing
