// Reply shapes of real providers that keel must read exactly, beyond text and tool calls:
// - Anthropic's server-side tool blocks (server_tool_use, web_search_tool_result: the provider ran
//   the tool itself) are not calls for keel to run (Anthropic docs, "Web search tool", streaming
//   example: content_block_start {"type":"server_tool_use",...} then input_json_delta pieces);
// - an OpenAI refusal (message.refusal, or delta.refusal pieces while streaming) is the answer the
//   user reads (OpenAI API reference, chat completion object and chunk: "refusal");
// - Mistral's thinking content parts ({"type":"thinking","thinking":[{"type":"text","text":...}]})
//   are reasoning (Mistral docs, "Reasoning": the content chunk format of Magistral models);
// - an in-stream error that carries its HTTP status as status_code is not retried when it is a 4xx.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keel/anthropic_client.hpp"
#include "keel/openai_client.hpp"
#include "llm/anthropic_test_support.hpp"
#include "llm/client_test_support.hpp"
#include "llm/openai_wire.hpp"
#include "llm/stream_assembler.hpp"
#include "support/mock_llm_server.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

TEST(ProviderReplyShapes, AnthropicServerToolBlocksAreNotCallsStreamed) {
  MockLlmServer server;
  const json server_tool = {{"type", "server_tool_use"}, {"id", "srvtoolu_014hJH82Qum7Td6UV8gDXThB"},
                            {"name", "web_search"}, {"input", json::object()}};
  const json search_result = {{"type", "web_search_tool_result"},
                              {"tool_use_id", "srvtoolu_014hJH82Qum7Td6UV8gDXThB"},
                              {"content", json::array({{{"type", "web_search_result"}, {"title", "Quantum"},
                                                        {"url", "https://example.com/q"}}})}};
  server.push(mock_sse({message_start_event(40), text_start_event(0), text_delta_event(0, "Let me search. "),
                        block_stop_event(0), sse_event("content_block_start", {{"index", 1}, {"content_block", server_tool}}),
                        json_delta_event(1, "{\"query\": \"latest quantum"), json_delta_event(1, " computing 2025\"}"),
                        block_stop_event(1),
                        sse_event("content_block_start", {{"index", 2}, {"content_block", search_result}}),
                        block_stop_event(2), text_start_event(3), text_delta_event(3, "Here is what I found."),
                        block_stop_event(3), message_delta_event("end_turn", 30), message_stop_event()}));
  auto client = make_anthropic_client(anthropic_fast_options(server));
  Result<ModelReply> reply = client->complete(Conversation().request(), CallOptions{});
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_TRUE(reply->tool_calls.empty());
  EXPECT_EQ(reply->text, "Let me search. Here is what I found.");
  EXPECT_EQ(reply->finish_reason, "stop");
}

TEST(ProviderReplyShapes, AnthropicServerToolBlocksAreNotCallsWhole) {
  MockLlmServer server;
  server.push(anthropic_message(
      json::array({{{"type", "server_tool_use"}, {"id", "srvtoolu_1"}, {"name", "web_search"},
                    {"input", {{"query", "weather"}}}},
                   {{"type", "web_search_tool_result"}, {"tool_use_id", "srvtoolu_1"}, {"content", json::array()}},
                   {{"type", "text"}, {"text", "Sunny."}}})));
  auto client = make_anthropic_client(anthropic_fast_options(server));
  CallOptions whole;
  whole.stream = false;
  Result<ModelReply> reply = client->complete(Conversation().request(), whole);
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_TRUE(reply->tool_calls.empty());
  EXPECT_EQ(reply->text, "Sunny.");
}

TEST(ProviderReplyShapes, AnOpenAiRefusalIsTheAnswer) {
  Result<ModelReply> whole = detail::parse_chat_completion(
      R"({"model":"gpt-4o-2024-08-06","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant",)"
      R"("content":null,"refusal":"I'm sorry, I cannot assist with that request."}}]})");
  ASSERT_TRUE(whole.ok()) << whole.status().to_string();
  EXPECT_EQ(whole->text, "I'm sorry, I cannot assist with that request.");

  std::string seen;
  CallOptions options;
  options.on_text = [&](std::string_view t) { seen += t; };
  detail::StreamAssembler a(options);
  for (const char* event : {R"({"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":null,"refusal":""}}]})",
                            R"({"choices":[{"index":0,"delta":{"refusal":"I'm sorry, "}}]})",
                            R"({"choices":[{"index":0,"delta":{"refusal":"I cannot assist with that request."}}]})",
                            R"({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})", "[DONE]"}) {
    ASSERT_TRUE(a.on_data(event).ok()) << event;
  }
  const ModelReply streamed = a.take_reply();
  EXPECT_EQ(streamed.text, "I'm sorry, I cannot assist with that request.");
  EXPECT_EQ(seen, streamed.text);
}

TEST(ProviderReplyShapes, MistralThinkingPartsAreReasoning) {
  Result<ModelReply> whole = detail::parse_chat_completion(
      R"({"model":"magistral-medium-2506","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant",)"
      R"("content":[{"type":"thinking","thinking":[{"type":"text","text":"The user asks 2+2. "},)"
      R"({"type":"text","text":"That is 4."}]},{"type":"text","text":"2 + 2 = 4."}]}}]})");
  ASSERT_TRUE(whole.ok()) << whole.status().to_string();
  EXPECT_EQ(whole->text, "2 + 2 = 4.");
  EXPECT_EQ(whole->reasoning, "The user asks 2+2. That is 4.");

  std::string thoughts, texts;
  CallOptions options;
  options.on_text = [&](std::string_view t) { texts += t; };
  options.on_reasoning = [&](std::string_view t) { thoughts += t; };
  detail::StreamAssembler a(options);
  for (const char* event :
       {R"({"model":"magistral-medium-2506","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})",
        R"({"choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"Add "}]}]}}]})",
        R"({"choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"them."}]}]}}]})",
        R"({"choices":[{"index":0,"delta":{"content":"4"}}]})",
        R"({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})", "[DONE]"}) {
    ASSERT_TRUE(a.on_data(event).ok()) << event;
  }
  const ModelReply streamed = a.take_reply();
  EXPECT_EQ(streamed.text, "4");
  EXPECT_EQ(streamed.reasoning, "Add them.");
  EXPECT_EQ(thoughts, "Add them.");
  EXPECT_EQ(texts, "4");
}

TEST(ProviderReplyShapes, AnInStreamErrorWithStatusCode400IsNotRetried) {
  MockLlmServer server;
  server.push(mock_sse({"data: {\"error\":{\"message\":\"Provider returned error\",\"status_code\":400}}\n\n"}));
  server.push(mock_text("must not be used"));
  auto client = make_openai_client(fast_options(server));
  Result<ModelReply> reply = client->complete(Conversation().request(), CallOptions{});
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::kInvalidArgument) << reply.status().to_string();
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_EQ(detail::embedded_error_status(json::parse(R"({"error":{"message":"x"},"status_code":429})")), 429);
  EXPECT_EQ(detail::embedded_error_status(json::parse(R"({"error":{"message":"x","status_code":"400"}})")), 0);
}

}  // namespace
}  // namespace keel::testing
