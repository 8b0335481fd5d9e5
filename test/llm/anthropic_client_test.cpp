// AnthropicClient against the mock server: the exact request JSON and headers, non-streamed
// replies (text, thinking, tool_use, stop reasons, usage), retries and HTTP errors.
#include "keel/anthropic_client.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "llm/anthropic_test_support.hpp"
#include "llm/client_test_support.hpp"
#include "support/mock_llm_server.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

CallOptions anthropic_non_streaming() {
  CallOptions o;
  o.stream = false;
  return o;
}

ToolResult tool_result(std::string id, ToolStatus status, std::string content) {
  ToolResult r;
  r.call_id = std::move(id);
  r.name = "read_file";
  r.status = status;
  r.content = std::move(content);
  return r;
}

TEST(AnthropicClientTest, RequestJsonForAConversationWithToolResults) {
  MockLlmServer server;
  ASSERT_TRUE(server.running());
  server.push(anthropic_message(json::array({{{"type", "text"}, {"text", "done"}}})));
  std::vector<Message> history = {
      Message::system("You are terse."),
      Message::user("Read a and b."),
      Message::assistant("Reading both.", {{"toolu_1", "read_file", R"({"path":"a"})"},
                                           {"toolu_2", "read_file", R"({"path":"b"})"}}),
      Message::tool(tool_result("toolu_1", ToolStatus::kOk, "alpha")),
      Message::tool(tool_result("toolu_2", ToolStatus::kError, "no such file: b")),
  };
  std::vector<ToolSpec> tools(1);
  tools[0].name = "read_file";
  tools[0].description = "Reads a file.";
  tools[0].parameters_schema = R"({"type":"object","properties":{"path":{"type":"string"}}})";
  ModelRequest request;
  request.history = history;
  request.appended.push_back(Message::system("Answer now."));
  request.appended.push_back(Message::user("Continue."));
  request.tools = tools;
  request.sampling.temperature = 0.5;
  request.sampling.top_p = 0.25;

  auto client = make_anthropic_client(anthropic_fast_options(server));
  Result<ModelReply> reply = client->complete(request, anthropic_non_streaming());
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();

  const std::vector<MockRequest> requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].path, "/v1/messages");
  EXPECT_EQ(requests[0].headers.at("x-api-key"), "sk-ant-test");
  EXPECT_EQ(requests[0].headers.at("anthropic-version"), "2023-06-01");
  EXPECT_EQ(requests[0].headers.at("content-type"), "application/json");
  EXPECT_EQ(requests[0].headers.count("authorization"), 0u);
  const json expected = json::parse(R"({
    "model": "claude-test",
    "max_tokens": 4096,
    "system": "You are terse.\n\nAnswer now.",
    "messages": [
      {"role": "user", "content": [{"type": "text", "text": "Read a and b."}]},
      {"role": "assistant", "content": [
        {"type": "text", "text": "Reading both."},
        {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a"}},
        {"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {"path": "b"}}]},
      {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "alpha"},
        {"type": "tool_result", "tool_use_id": "toolu_2", "content": "no such file: b", "is_error": true},
        {"type": "text", "text": "Continue."}]}
    ],
    "tools": [{"name": "read_file", "description": "Reads a file.",
               "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}],
    "temperature": 0.5,
    "top_p": 0.25
  })");
  EXPECT_EQ(json::parse(requests[0].body), expected) << requests[0].body;
}

TEST(AnthropicClientTest, SameRoleMessagesMergeAndFinalRoundDeclaresToolChoiceNone) {
  MockLlmServer server;
  server.push(anthropic_message(json::array({{{"type", "text"}, {"text", "ok"}}})));
  std::vector<Message> history = {Message::user("one"), Message::user("two"), Message::assistant("a"),
                                  Message::assistant("", {{"toolu_9", "read_file", "not json"}})};
  Conversation conv;  // one tool, read_file
  ModelRequest request;
  request.history = history;
  request.tools = conv.tools;
  request.tools_enabled = false;
  request.sampling.max_tokens = 100;
  auto client = make_anthropic_client(anthropic_fast_options(server));
  ASSERT_TRUE(client->complete(request, anthropic_non_streaming()).ok());
  const json body = json::parse(server.request_bodies().at(0));
  const json messages = json::parse(R"([
    {"role": "user", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "a"},
                                      {"type": "tool_use", "id": "toolu_9", "name": "read_file", "input": {}}]}
  ])");
  EXPECT_EQ(body["messages"], messages);
  EXPECT_EQ(body["max_tokens"], 100);
  EXPECT_FALSE(body.contains("system"));
  EXPECT_EQ(body["tool_choice"], json::parse(R"({"type":"none"})"));
  EXPECT_EQ(body["tools"][0]["name"], "read_file");
}

TEST(AnthropicClientTest, TheToolChoiceIsSentAsAnthropicWritesIt) {
  Conversation conv;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"required", R"({"type":"any"})"}, {"read_file", R"({"type":"tool","name":"read_file"})"},
      {"none", R"({"type":"none"})"}};
  for (const auto& [choice, wire] : cases) {
    MockLlmServer server;
    server.push(anthropic_message(json::array({{{"type", "text"}, {"text", "ok"}}})));
    std::vector<Message> history = {Message::user("one")};
    ModelRequest request;
    request.history = history;
    request.tools = conv.tools;
    request.tool_choice = choice;
    auto client = make_anthropic_client(anthropic_fast_options(server));
    ASSERT_TRUE(client->complete(request, anthropic_non_streaming()).ok());
    EXPECT_EQ(json::parse(server.request_bodies().at(0))["tool_choice"], json::parse(wire)) << choice;
  }
}

TEST(AnthropicClientTest, NonStreamedTextWithThinking) {
  MockLlmServer server;
  server.push(anthropic_message(json::array({{{"type", "thinking"}, {"thinking", "Let me think."}, {"signature", "s"}},
                                             {{"type", "text"}, {"text", "Hello"}},
                                             {{"type", "text"}, {"text", " there"}}}),
                                "end_turn", 31, 8));
  auto client = make_anthropic_client(anthropic_fast_options(server));
  Result<ModelReply> reply = client->complete(Conversation().request(), anthropic_non_streaming());
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->text, "Hello there");
  EXPECT_EQ(reply->reasoning, "Let me think.");
  EXPECT_TRUE(reply->tool_calls.empty());
  EXPECT_EQ(reply->finish_reason, "stop");
  EXPECT_EQ(reply->model, "claude-test");
  EXPECT_EQ(reply->usage.prompt_tokens, 31);
  EXPECT_EQ(reply->usage.completion_tokens, 8);
  const json body = json::parse(server.request_bodies().at(0));
  EXPECT_FALSE(body.contains("stream"));
  EXPECT_EQ(server.requests().at(0).headers.at("accept"), "application/json");
}

TEST(AnthropicClientTest, NonStreamedToolUse) {
  MockLlmServer server;
  server.push(anthropic_message(
      json::array({{{"type", "text"}, {"text", "Let me look."}},
                   {{"type", "tool_use"}, {"id", "toolu_1"}, {"name", "read_file"}, {"input", {{"path", "a.txt"}}}},
                   {{"type", "tool_use"}, {"id", "toolu_2"}, {"name", "list"}, {"input", json::object()}}}),
      "tool_use"));
  auto client = make_anthropic_client(anthropic_fast_options(server));
  Result<ModelReply> reply = client->complete(Conversation().request(), anthropic_non_streaming());
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->text, "Let me look.");
  EXPECT_EQ(reply->finish_reason, "tool_calls");
  ASSERT_EQ(reply->tool_calls.size(), 2u);
  EXPECT_EQ(reply->tool_calls[0].id, "toolu_1");
  EXPECT_EQ(reply->tool_calls[0].name, "read_file");
  EXPECT_EQ(reply->tool_calls[0].arguments, R"({"path":"a.txt"})");
  EXPECT_EQ(reply->tool_calls[1].id, "toolu_2");
  EXPECT_EQ(reply->tool_calls[1].arguments, "{}");
}

TEST(AnthropicClientTest, StopReasonsMapToKeelFinishReasons) {
  MockLlmServer server;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"end_turn", "stop"}, {"stop_sequence", "stop"}, {"tool_use", "tool_calls"},
      {"max_tokens", "length"}, {"refusal", "refusal"}};
  auto client = make_anthropic_client(anthropic_fast_options(server));
  for (const auto& [stop, finish] : cases) {
    server.push(anthropic_message(json::array({{{"type", "text"}, {"text", "x"}}}), stop));
    Result<ModelReply> reply = client->complete(Conversation().request(), anthropic_non_streaming());
    ASSERT_TRUE(reply.ok()) << reply.status().to_string();
    EXPECT_EQ(reply->finish_reason, finish) << stop;
  }
}

MockResponse overloaded(std::string retry_after) {
  return mock_raw(529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})",
                  "application/json", {{"Retry-After", std::move(retry_after)}});
}

TEST(AnthropicClientTest, OverloadedIsRetriedHonouringRetryAfter) {
  for (const std::string retry_after : {"0", "1"}) {
    MockLlmServer server;
    server.push(overloaded(retry_after));
    server.push(anthropic_message(json::array({{{"type", "text"}, {"text", "recovered"}}})));
    auto client = make_anthropic_client(anthropic_fast_options(server));
    std::vector<int64_t> delays;
    std::string why;
    CallOptions options = anthropic_non_streaming();
    options.on_retry = [&](int, const Status& status, int64_t delay_ms) {
      delays.push_back(delay_ms);
      why = status.message();
    };
    const auto start = std::chrono::steady_clock::now();
    Result<ModelReply> reply = client->complete(Conversation().request(), options);
    ASSERT_TRUE(reply.ok()) << reply.status().to_string();
    EXPECT_EQ(reply->text, "recovered");
    EXPECT_EQ(server.request_count(), 2u);
    const std::vector<MockRequest> sent = server.requests();
    ASSERT_EQ(sent.size(), 2u);
    EXPECT_FALSE(sent[0].body.empty());
    EXPECT_EQ(sent[1].body, sent[0].body);  // the retry sends the same request again
    ASSERT_EQ(delays.size(), 1u);
    EXPECT_EQ(delays[0], retry_after == "0" ? 0 : 1000);
    EXPECT_NE(why.find("HTTP 529"), std::string::npos) << why;
    EXPECT_NE(why.find("overloaded_error: Overloaded"), std::string::npos) << why;
    if (retry_after == "1") {
      EXPECT_GE(elapsed_ms(start), 990);
    }
  }
}

TEST(AnthropicClientTest, RateLimitsAndServerErrorsAreRetriedUntilAttemptsRunOut) {
  MockLlmServer server;
  server.push(mock_raw(429, R"({"type":"error","error":{"type":"rate_limit_error","message":"slow down"}})"));
  server.push(mock_raw(500, R"({"type":"error","error":{"type":"api_error","message":"boom"}})"));
  AnthropicOptions o = anthropic_fast_options(server);
  o.retry.max_attempts = 2;
  auto client = make_anthropic_client(o);
  Result<ModelReply> reply = client->complete(Conversation().request(), anthropic_non_streaming());
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(reply.status().message().find("gave up after 2 attempts"), std::string::npos);
  EXPECT_NE(reply.status().message().find("api_error: boom"), std::string::npos) << reply.status().message();
  EXPECT_EQ(server.request_count(), 2u);
}

TEST(AnthropicClientTest, UnauthorizedFailsAtOnceWithAnthropicsMessage) {
  MockLlmServer server;
  server.push(mock_raw(401, R"({"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}})"));
  auto client = make_anthropic_client(anthropic_fast_options(server));
  Result<ModelReply> reply = client->complete(Conversation().request(), anthropic_non_streaming());
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kUnauthenticated);
  EXPECT_NE(reply.status().message().find("authentication_error: invalid x-api-key"), std::string::npos)
      << reply.status().message();
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(AnthropicClientTest, BadRequestAndNotFoundAreNotRetried) {
  MockLlmServer server;
  server.push(mock_raw(400, R"({"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: bad"}})"));
  server.push(mock_raw(404, R"({"type":"error","error":{"type":"not_found_error","message":"model: nope"}})"));
  auto client = make_anthropic_client(anthropic_fast_options(server));
  Result<ModelReply> bad = client->complete(Conversation().request(), anthropic_non_streaming());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("max_tokens: bad"), std::string::npos);
  Result<ModelReply> missing = client->complete(Conversation().request(), anthropic_non_streaming());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.status().message().find("model: nope"), std::string::npos);
  EXPECT_EQ(server.request_count(), 2u);
}

TEST(AnthropicClientTest, InvalidOptionsAreReportedByEveryCall) {
  AnthropicOptions o;
  o.model = "claude-test";
  EXPECT_TRUE(validate_anthropic_options(o).ok());
  EXPECT_EQ(make_anthropic_client(o)->describe(), "anthropic https://api.anthropic.com/v1/messages (claude-test)");
  o.max_tokens = 0;
  EXPECT_EQ(validate_anthropic_options(o).code(), ErrorCode::kInvalidArgument);
  o.max_tokens = 10;
  o.base_url = "ftp://x";
  Result<ModelReply> reply = make_anthropic_client(o)->complete(Conversation().request(), anthropic_non_streaming());
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(reply.status().message().find("ftp://x"), std::string::npos);
  o.base_url = "http://127.0.0.1:1";
  o.model.clear();
  EXPECT_EQ(validate_anthropic_options(o).code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace keel::testing
