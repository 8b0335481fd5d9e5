// Prompt tokens a provider served from its cache reach Usage::cached_prompt_tokens the same way from
// every backend: OpenAI's usage.prompt_tokens_details.cached_tokens (whole replies and streams) and
// Anthropic's cache_read_input_tokens (whole replies and streams).
#include <gtest/gtest.h>

#include "llm/anthropic_stream.hpp"
#include "llm/anthropic_wire.hpp"
#include "llm/openai_wire.hpp"
#include "llm/stream_assembler.hpp"

namespace keel::detail {
namespace {

TEST(CachedTokensTest, OpenAiWholeRepliesAndStreams) {
  Result<ModelReply> whole = parse_chat_completion(
      R"({"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"hi"}}],)"
      R"("usage":{"prompt_tokens":2000,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":1920}}})");
  ASSERT_TRUE(whole.ok()) << whole.status().to_string();
  EXPECT_EQ(whole->usage.prompt_tokens, 2000);
  EXPECT_EQ(whole->usage.cached_prompt_tokens, 1920);

  Result<ModelReply> plain = parse_chat_completion(
      R"({"choices":[{"index":0,"message":{"content":"hi"}}],"usage":{"prompt_tokens":7,"completion_tokens":1}})");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->usage.cached_prompt_tokens, 0);

  CallOptions options;
  StreamAssembler a(options);
  for (const char* event : {R"({"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]})",
                            R"({"choices":[],"usage":{"prompt_tokens":900,"completion_tokens":1,)"
                            R"("prompt_tokens_details":{"cached_tokens":640}}})",
                            "[DONE]"}) {
    ASSERT_TRUE(a.on_data(event).ok()) << event;
  }
  ModelReply streamed = a.take_reply();
  EXPECT_EQ(streamed.usage.prompt_tokens, 900);
  EXPECT_EQ(streamed.usage.cached_prompt_tokens, 640);
}

TEST(CachedTokensTest, AnthropicWholeRepliesAndStreams) {
  Result<ModelReply> whole = parse_messages_reply(
      R"({"type":"message","role":"assistant","model":"c","stop_reason":"end_turn",)"
      R"("content":[{"type":"text","text":"hi"}],)"
      R"("usage":{"input_tokens":10,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":3}})");
  ASSERT_TRUE(whole.ok()) << whole.status().to_string();
  EXPECT_EQ(whole->usage.prompt_tokens, 1110);
  EXPECT_EQ(whole->usage.cached_prompt_tokens, 1000);

  CallOptions options;
  AnthropicStreamAssembler a(options);
  ASSERT_TRUE(a.on_event("message_start",
                         R"({"type":"message_start","message":{"model":"c","usage":{"input_tokens":5,)"
                         R"("cache_read_input_tokens":300,"output_tokens":1}}})")
                  .ok());
  ASSERT_TRUE(a.on_event("content_block_start",
                         R"({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}})")
                  .ok());
  ASSERT_TRUE(a.on_event("content_block_delta",
                         R"({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}})")
                  .ok());
  ASSERT_TRUE(a.on_event("content_block_stop", R"({"type":"content_block_stop","index":0})").ok());
  ASSERT_TRUE(a.on_event("message_delta",
                         R"({"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}})")
                  .ok());
  ASSERT_TRUE(a.on_event("message_stop", R"({"type":"message_stop"})").ok());
  ModelReply streamed = a.take_reply();
  EXPECT_EQ(streamed.text, "hi");
  EXPECT_EQ(streamed.usage.prompt_tokens, 305);
  EXPECT_EQ(streamed.usage.cached_prompt_tokens, 300);
}

}  // namespace
}  // namespace keel::detail
