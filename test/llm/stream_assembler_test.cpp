// StreamAssembler: deltas to a ModelReply, callbacks, tool calls by index, usage, errors.
#include "llm/stream_assembler.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace keel::detail {
namespace {

TEST(StreamAssemblerTest, AssemblesTextReasoningToolCallsAndUsage) {
  std::vector<std::string> texts, thoughts;
  CallOptions options;
  options.on_text = [&](std::string_view t) { texts.emplace_back(t); };
  options.on_reasoning = [&](std::string_view t) { thoughts.emplace_back(t); };
  StreamAssembler a(options);
  for (const char* event : {
           R"({"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})",
           R"({"choices":[{"index":0,"delta":{"reasoning":"hm"}}]})",
           R"({"choices":[{"index":0,"delta":{"content":"Hel"}}]})",
           R"({"choices":[{"index":0,"delta":{"content":"lo"}}]})",
           R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"c2","function":{"name":"g","arguments":""}}]}}]})",
           R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\"a\""}}]}}]})",
           R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"b\":2}"}}]}}]})",
           R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]})",
           R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})",
           R"({"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4}})",
           "[DONE]"}) {
    ASSERT_TRUE(a.on_data(event).ok()) << event;
  }
  EXPECT_TRUE(a.done());
  EXPECT_TRUE(a.finished());
  EXPECT_TRUE(a.delivered());
  const ModelReply reply = a.take_reply();
  EXPECT_EQ(reply.model, "m");
  EXPECT_EQ(reply.text, "Hello");
  EXPECT_EQ(texts, (std::vector<std::string>{"Hel", "lo"}));
  EXPECT_EQ(thoughts, std::vector<std::string>{"hm"});
  EXPECT_EQ(reply.finish_reason, "tool_calls");
  EXPECT_EQ(reply.usage.prompt_tokens, 9);
  EXPECT_EQ(reply.usage.completion_tokens, 4);
  ASSERT_EQ(reply.tool_calls.size(), 2u);
  EXPECT_EQ(reply.tool_calls[0].id, "c1");
  EXPECT_EQ(reply.tool_calls[0].name, "f");
  EXPECT_EQ(reply.tool_calls[0].arguments, R"({"a":1})");
  EXPECT_EQ(reply.tool_calls[1].id, "c2");
  EXPECT_EQ(reply.tool_calls[1].arguments, R"({"b":2})");
}

TEST(StreamAssemblerTest, ToolCallsWithoutIndexAndWholeObjectArguments) {
  CallOptions options;
  StreamAssembler a(options);
  ASSERT_TRUE(a.on_data(R"({"choices":[{"delta":{"tool_calls":[{"id":"x","function":{"name":"f","arguments":{"k":1}}}]}}]})").ok());
  ASSERT_TRUE(a.on_data(R"({"choices":[{"delta":{"tool_calls":[{"id":"y","function":{"name":"g"}}]}}]})").ok());
  ASSERT_TRUE(a.on_data(R"({"choices":[{"delta":{},"finish_reason":"tool_calls"}]})").ok());
  EXPECT_FALSE(a.delivered());
  const ModelReply reply = a.take_reply();
  ASSERT_EQ(reply.tool_calls.size(), 2u);
  EXPECT_EQ(reply.tool_calls[0].arguments, R"({"k":1})");
  EXPECT_EQ(reply.tool_calls[1].name, "g");
  EXPECT_EQ(reply.tool_calls[1].arguments, "{}");
}

TEST(StreamAssemblerTest, ErrorsAndBadEvents) {
  CallOptions options;
  StreamAssembler a(options);
  Status s = a.on_data(R"({"error":{"message":"context too long","code":400}})");
  EXPECT_EQ(s.code(), ErrorCode::kUnavailable);
  EXPECT_NE(s.message().find("context too long"), std::string::npos);
  EXPECT_EQ(a.error_http_status(), 400);
  StreamAssembler b(options);
  EXPECT_EQ(b.on_data("{oops").code(), ErrorCode::kUnavailable);
  EXPECT_TRUE(b.on_data("  ").ok());  // blank keep-alive data
}

TEST(StreamAssemblerTest, ThrowingCallbackBecomesInternal) {
  CallOptions options;
  options.on_text = [](std::string_view) { throw std::runtime_error("ui gone"); };
  StreamAssembler a(options);
  const Status s = a.on_data(R"({"choices":[{"delta":{"content":"x"}}]})");
  EXPECT_EQ(s.code(), ErrorCode::kInternal);
  EXPECT_NE(s.message().find("ui gone"), std::string::npos);
}

}  // namespace
}  // namespace keel::detail
