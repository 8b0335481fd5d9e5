// OpenAiClient against the mock server: successful non-streamed and streamed replies, request
// contents, and connection reuse.
#include "keel/openai_client.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "llm/client_test_support.hpp"
#include "support/mock_llm_server.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

CallOptions non_streaming() {
  CallOptions o;
  o.stream = false;
  return o;
}

TEST(OpenAiClientTest, NonStreamingText) {
  MockLlmServer server;
  ASSERT_TRUE(server.running());
  server.push(mock_text("hello there"));
  auto client = make_openai_client(fast_options(server));
  Conversation conv;
  Result<ModelReply> reply = client->complete(conv.request(), non_streaming());
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->text, "hello there");
  EXPECT_EQ(reply->finish_reason, "stop");
  EXPECT_EQ(reply->model, "mock-model");
  EXPECT_EQ(reply->usage.prompt_tokens, 10);
  EXPECT_EQ(reply->usage.completion_tokens, 5);

  const std::vector<MockRequest> requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].path, "/v1/chat/completions");
  EXPECT_EQ(requests[0].headers.at("authorization"), "Bearer sk-test");
  EXPECT_EQ(requests[0].headers.at("content-type"), "application/json");
  const json body = json::parse(requests[0].body);
  EXPECT_EQ(body["model"], "mock-model");
  EXPECT_FALSE(body.contains("stream"));
  EXPECT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["tools"][0]["function"]["name"], "read_file");
}

TEST(OpenAiClientTest, StreamingTextArrivesAsDeltas) {
  MockLlmServer server;
  ModelReply scripted;
  scripted.text = "Hello, streaming world! Ünïcödé survives splitting.";
  scripted.usage = {21, 9};
  server.push(mock_stream(scripted, 3));
  auto client = make_openai_client(fast_options(server));
  std::vector<std::string> deltas;
  CallOptions options;
  options.on_text = [&](std::string_view t) { deltas.emplace_back(t); };
  Result<ModelReply> reply = client->complete(Conversation().request(), options);
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->text, scripted.text);
  EXPECT_GT(deltas.size(), 5u);
  std::string joined;
  for (const std::string& d : deltas) joined += d;
  EXPECT_EQ(joined, scripted.text);
  EXPECT_EQ(reply->finish_reason, "stop");
  EXPECT_EQ(reply->usage.prompt_tokens, 21);  // from the usage chunk with no choices
  EXPECT_EQ(reply->usage.completion_tokens, 9);
  const json body = json::parse(server.request_bodies().at(0));
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
  EXPECT_EQ(server.requests().at(0).headers.at("accept"), "text/event-stream");
}

TEST(OpenAiClientTest, StreamedToolCallsAreAssembledByIndex) {
  MockLlmServer server;
  ModelReply scripted;
  scripted.text = "Let me look.";
  scripted.tool_calls = {{"call_a", "read_file", R"({"path":"README.md","max_lines":40})"},
                         {"call_b", "list_dir", R"({"path":"src","recursive":true})"}};
  server.push(mock_stream(scripted, 5));
  auto client = make_openai_client(fast_options(server));
  Result<ModelReply> reply = client->complete(Conversation().request(), CallOptions{});
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->text, "Let me look.");
  EXPECT_EQ(reply->finish_reason, "tool_calls");
  ASSERT_EQ(reply->tool_calls.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(reply->tool_calls[i].id, scripted.tool_calls[i].id);
    EXPECT_EQ(reply->tool_calls[i].name, scripted.tool_calls[i].name);
    EXPECT_EQ(reply->tool_calls[i].arguments, scripted.tool_calls[i].arguments);
  }
}

TEST(OpenAiClientTest, StreamedReasoningReachesItsCallback) {
  MockLlmServer server;
  ModelReply scripted;
  scripted.reasoning = "The user wants a greeting.";
  scripted.text = "Hello!";
  server.push(mock_stream(scripted));
  auto client = make_openai_client(fast_options(server));
  std::string thoughts, text;
  CallOptions options;
  options.on_reasoning = [&](std::string_view t) { thoughts += t; };
  options.on_text = [&](std::string_view t) { text += t; };
  Result<ModelReply> reply = client->complete(Conversation().request(), options);
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->reasoning, scripted.reasoning);
  EXPECT_EQ(thoughts, scripted.reasoning);
  EXPECT_EQ(text, "Hello!");
}

TEST(OpenAiClientTest, UsageChunkAfterFinishAndNoDoneIsAccepted) {
  MockLlmServer server;
  server.push(mock_sse({
      "data:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\r\n\r\n",
      ": comment line\n\n",
      "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n",
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\n",
  }));
  auto client = make_openai_client(fast_options(server));
  Result<ModelReply> reply = client->complete(Conversation().request(), CallOptions{});
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->text, "ok");
  EXPECT_EQ(reply->finish_reason, "length");
  EXPECT_EQ(reply->usage.prompt_tokens, 3);
  EXPECT_EQ(reply->usage.completion_tokens, 1);
}

TEST(OpenAiClientTest, StreamingRequestAnsweredWithPlainJson) {
  MockLlmServer server;
  server.push(mock_tool_calls({{"c1", "read_file", R"({"path":"a"})"}}, "checking"));
  auto client = make_openai_client(fast_options(server));
  std::vector<std::string> deltas;
  CallOptions options;
  options.on_text = [&](std::string_view t) { deltas.emplace_back(t); };
  Result<ModelReply> reply = client->complete(Conversation().request(), options);
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(deltas, std::vector<std::string>{"checking"});
  ASSERT_EQ(reply->tool_calls.size(), 1u);
  EXPECT_EQ(reply->tool_calls[0].arguments, R"({"path":"a"})");
}

TEST(OpenAiClientTest, ToolsAreOmittedWhenDisabled) {
  MockLlmServer server;
  server.push(mock_text("a"));
  server.push(mock_text("b"));
  auto client = make_openai_client(fast_options(server));
  Conversation conv;
  ASSERT_TRUE(client->complete(conv.request(/*tools_enabled=*/true), non_streaming()).ok());
  ASSERT_TRUE(client->complete(conv.request(/*tools_enabled=*/false), non_streaming()).ok());
  const std::vector<std::string> bodies = server.request_bodies();
  ASSERT_EQ(bodies.size(), 2u);
  EXPECT_TRUE(json::parse(bodies[0]).contains("tools"));
  EXPECT_FALSE(json::parse(bodies[1]).contains("tools"));
}

TEST(OpenAiClientTest, SequentialRequestsReuseOneConnection) {
  MockLlmServer server;
  ModelReply streamed;
  streamed.text = "streamed";
  for (int i = 0; i < 5; ++i) server.push(i % 2 == 0 ? mock_text("plain") : mock_stream(streamed));
  auto client = make_openai_client(fast_options(server));
  for (int i = 0; i < 5; ++i) {
    CallOptions options;
    options.stream = i % 2 == 1;
    Result<ModelReply> reply = client->complete(Conversation().request(), options);
    ASSERT_TRUE(reply.ok()) << i << ": " << reply.status().to_string();
    EXPECT_EQ(reply->text, i % 2 == 0 ? "plain" : "streamed");
  }
  EXPECT_EQ(server.request_count(), 5u);
  EXPECT_EQ(server.connections_accepted(), 1u);
}

TEST(OpenAiClientTest, ExtraHeadersAndNoKey) {
  MockLlmServer server;
  server.push(mock_text("x"));
  OpenAiOptions options = fast_options(server);
  options.api_key.clear();
  options.extra_headers = {{"X-Trace", "abc"}};
  auto client = make_openai_client(options);
  ASSERT_TRUE(client->complete(Conversation().request(), non_streaming()).ok());
  const MockRequest request = server.requests().at(0);
  EXPECT_EQ(request.headers.count("authorization"), 0u);
  EXPECT_EQ(request.headers.at("x-trace"), "abc");
}

TEST(OpenAiClientTest, DescribeAndInvalidOptions) {
  OpenAiOptions options;
  options.base_url = "http://127.0.0.1:11434/v1/";
  options.model = "qwen2.5:7b";
  EXPECT_EQ(make_openai_client(options)->describe(), "openai-compatible http://127.0.0.1:11434/v1 (qwen2.5:7b)");

  options.base_url = "127.0.0.1:11434";
  Result<ModelReply> reply = make_openai_client(options)->complete(Conversation().request(), CallOptions{});
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(reply.status().message().find("base_url"), std::string::npos);

  options.base_url = "http://x";
  options.retry.multiplier = 0.5;
  EXPECT_EQ(validate_openai_options(options).code(), ErrorCode::kInvalidArgument);
  options.retry.multiplier = 2;
  options.extra_headers = {{"Bad\r\nHeader", "v"}};
  EXPECT_EQ(validate_openai_options(options).code(), ErrorCode::kInvalidArgument);
  options.extra_headers.clear();
  EXPECT_TRUE(validate_openai_options(options).ok());
}

}  // namespace
}  // namespace keel::testing
