// AnthropicClient streaming against the mock server: text and thinking deltas reach the callbacks,
// tool_use input is assembled from input_json_delta pieces, and broken streams (cut before
// message_stop, an error event) fail instead of answering partially; a stop request cancels.
#include "keel/anthropic_client.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "llm/anthropic_test_support.hpp"
#include "llm/client_test_support.hpp"
#include "support/mock_llm_server.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

TEST(AnthropicStreamTest, TextPiecesAndAToolUseAssembledFromJsonDeltas) {
  MockLlmServer server;
  ASSERT_TRUE(server.running());
  server.push(mock_sse({message_start_event(25), text_start_event(0), text_delta_event(0, "Hel"),
                        sse_event("ping"), text_delta_event(0, "lo, "), text_delta_event(0, "wörld"),
                        block_stop_event(0), tool_start_event(1, "toolu_7", "read_file"),
                        json_delta_event(1, ""), json_delta_event(1, "{\"pa"), json_delta_event(1, "th\": \"a"),
                        json_delta_event(1, ".txt\"}"), block_stop_event(1), message_delta_event("tool_use", 17),
                        message_stop_event()}));
  auto client = make_anthropic_client(anthropic_fast_options(server));
  std::vector<std::string> pieces;
  CallOptions options;
  options.on_text = [&](std::string_view t) { pieces.emplace_back(t); };
  Result<ModelReply> reply = client->complete(Conversation().request(), options);
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(pieces, (std::vector<std::string>{"Hel", "lo, ", "wörld"}));
  EXPECT_EQ(reply->text, "Hello, wörld");
  ASSERT_EQ(reply->tool_calls.size(), 1u);
  EXPECT_EQ(reply->tool_calls[0].id, "toolu_7");
  EXPECT_EQ(reply->tool_calls[0].name, "read_file");
  EXPECT_EQ(reply->tool_calls[0].arguments, R"({"path": "a.txt"})");
  EXPECT_EQ(reply->finish_reason, "tool_calls");
  EXPECT_EQ(reply->model, "claude-test");
  EXPECT_EQ(reply->usage.prompt_tokens, 25);
  EXPECT_EQ(reply->usage.completion_tokens, 17);
  const json body = json::parse(server.request_bodies().at(0));
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(server.requests().at(0).headers.at("accept"), "text/event-stream");
}

TEST(AnthropicStreamTest, ToolUseWithoutDeltasHasEmptyObjectArguments) {
  MockLlmServer server;
  server.push(anthropic_tool_stream("toolu_1", "list", {}));
  auto client = make_anthropic_client(anthropic_fast_options(server));
  Result<ModelReply> reply = client->complete(Conversation().request(), CallOptions{});
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  ASSERT_EQ(reply->tool_calls.size(), 1u);
  EXPECT_EQ(reply->tool_calls[0].arguments, "{}");
}

TEST(AnthropicStreamTest, ThinkingDeltasBecomeReasoning) {
  MockLlmServer server;
  server.push(mock_sse(
      {message_start_event(),
       sse_event("content_block_start", {{"index", 0}, {"content_block", {{"type", "thinking"}, {"thinking", ""}}}}),
       sse_event("content_block_delta", {{"index", 0}, {"delta", {{"type", "thinking_delta"}, {"thinking", "Two "}}}}),
       sse_event("content_block_delta", {{"index", 0}, {"delta", {{"type", "thinking_delta"}, {"thinking", "steps."}}}}),
       sse_event("content_block_delta", {{"index", 0}, {"delta", {{"type", "signature_delta"}, {"signature", "sig"}}}}),
       block_stop_event(0), text_start_event(1), text_delta_event(1, "Done."), block_stop_event(1),
       sse_event("message_delta", {{"delta", {{"stop_reason", "max_tokens"}}},
                                   {"usage", {{"output_tokens", 3}, {"input_tokens", nullptr}}}}),
       message_stop_event()}));
  auto client = make_anthropic_client(anthropic_fast_options(server));
  std::vector<std::string> thoughts;
  std::string text;
  CallOptions options;
  options.on_reasoning = [&](std::string_view t) { thoughts.emplace_back(t); };
  options.on_text = [&](std::string_view t) { text += t; };
  Result<ModelReply> reply = client->complete(Conversation().request(), options);
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(thoughts, (std::vector<std::string>{"Two ", "steps."}));
  EXPECT_EQ(reply->reasoning, "Two steps.");
  EXPECT_EQ(text, "Done.");
  EXPECT_EQ(reply->text, "Done.");
  EXPECT_EQ(reply->finish_reason, "length");
  EXPECT_EQ(reply->usage.completion_tokens, 3);
  EXPECT_EQ(reply->usage.prompt_tokens, 25);  // a null count in message_delta keeps message_start's
}

TEST(AnthropicStreamTest, StreamCutBeforeMessageStopIsAnError) {
  MockLlmServer server;
  server.push(mock_sse({message_start_event(), text_start_event(0), text_delta_event(0, "partial "),
                        text_delta_event(0, "answer"), block_stop_event(0), message_delta_event("end_turn", 2)}));
  auto client = make_anthropic_client(anthropic_fast_options(server));
  std::string seen;
  CallOptions options;
  options.on_text = [&](std::string_view t) { seen += t; };
  Result<ModelReply> reply = client->complete(Conversation().request(), options);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(reply.status().message().find("before message_stop"), std::string::npos) << reply.status().message();
  EXPECT_EQ(seen, "partial answer");
  EXPECT_EQ(server.request_count(), 1u);  // text already reached the caller: not repeated
}

TEST(AnthropicStreamTest, CutStreamWithNothingDeliveredIsRetried) {
  MockLlmServer server;
  server.push(mock_sse({message_start_event(), tool_start_event(0, "toolu_1", "read_file"),
                        json_delta_event(0, "{\"path\"")}));
  server.push(anthropic_tool_stream("toolu_2", "read_file", {"{\"path\":", "\"b\"}"}));
  auto client = make_anthropic_client(anthropic_fast_options(server));
  Result<ModelReply> reply = client->complete(Conversation().request(), CallOptions{});
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  ASSERT_EQ(reply->tool_calls.size(), 1u);
  EXPECT_EQ(reply->tool_calls[0].id, "toolu_2");
  EXPECT_EQ(reply->tool_calls[0].arguments, R"({"path":"b"})");
  EXPECT_EQ(server.request_count(), 2u);
}

TEST(AnthropicStreamTest, ErrorEventMidStreamIsAnError) {
  MockLlmServer server;
  server.push(mock_sse({message_start_event(), text_start_event(0), text_delta_event(0, "Hi"),
                        sse_event("error", {{"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}})}));
  auto client = make_anthropic_client(anthropic_fast_options(server));
  CallOptions options;
  options.on_text = [](std::string_view) {};
  Result<ModelReply> reply = client->complete(Conversation().request(), options);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(reply.status().message().find("overloaded_error: Overloaded"), std::string::npos)
      << reply.status().message();
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(AnthropicStreamTest, StreamRequestAnsweredWithJsonStillReachesCallbacks) {
  MockLlmServer server;
  server.push(anthropic_message(json::array({{{"type", "text"}, {"text", "plain"}}})));
  auto client = make_anthropic_client(anthropic_fast_options(server));
  std::string seen;
  CallOptions options;
  options.on_text = [&](std::string_view t) { seen += t; };
  Result<ModelReply> reply = client->complete(Conversation().request(), options);
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->text, "plain");
  EXPECT_EQ(seen, "plain");
}

TEST(AnthropicStreamTest, StopTokenCancelsPromptly) {
  MockLlmServer server;
  MockResponse slow = anthropic_text_stream({"a", "b", "c"});
  slow.chunk_delay_ms = 5000;
  server.push(slow);
  auto client = make_anthropic_client(anthropic_fast_options(server));
  std::stop_source stop;
  CallOptions options;
  options.stop = stop.get_token();
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop.request_stop();
  });
  const auto start = std::chrono::steady_clock::now();
  Result<ModelReply> reply = client->complete(Conversation().request(), options);
  const int64_t took = elapsed_ms(start);
  canceller.join();
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kCancelled);
  EXPECT_GE(took, 190);
  EXPECT_LT(took, 3000);
}

}  // namespace
}  // namespace keel::testing
