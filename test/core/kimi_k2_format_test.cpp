// Kimi-K2 format: what the corpus cannot assert (call ids) and linear, crash-free parsing of
// large pathological input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "keel/core/universal_parser.hpp"

namespace keel {
namespace {

ParseOutcome parse(std::string_view format, std::string_view text) {
  auto parser = UniversalToolCallParser::create(format);
  EXPECT_TRUE(parser.ok());
  ParseOutcome out = (*parser)->parse_full(text, {});
  for (const auto& c : out.calls) EXPECT_TRUE(nlohmann::json::parse(c.arguments, nullptr, false).is_object());
  return out;
}

std::string repeat(std::string_view piece, size_t bytes) {
  std::string s;
  while (s.size() < bytes) s.append(piece);
  return s;
}

TEST(KimiK2FormatTest, KeepsTheWholeCallIdAsId) {
  ParseOutcome out =
      parse("kimi_k2",
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
            "{\"city\": \"Paris\"}<|tool_call_end|><|tool_call_begin|>functions.now:1"
            "<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>");
  ASSERT_EQ(out.calls.size(), 2u);
  EXPECT_EQ(out.calls[0].id, "functions.get_weather:0");
  EXPECT_EQ(out.calls[0].name, "get_weather");
  EXPECT_EQ(out.calls[1].id, "functions.now:1");
  EXPECT_EQ(out.calls[1].name, "now");
}

TEST(KimiK2FormatTest, LargePathologicalInputIsLinearAndSafe) {
  const std::string call =
      "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": [1, {\"b\": \"c\"}]}<|tool_call_end|>";
  EXPECT_EQ(parse("kimi_k2", repeat(call, 1 << 19)).calls.size(), (((1u << 19) + call.size() - 1) / call.size()));
  for (std::string_view piece :
       {"<|tool_call_begin|>", "<|", "`<|tool_call_begin|>", "<|tool_call_argument_begin|>{",
        "<|tool_call_begin|>f<|tool_call_argument_begin|>[", "<|tool_calls_section_begin|> "}) {
    parse("kimi_k2", repeat(piece, 1 << 19));
    parse("auto", repeat(piece, 1 << 16));  // the other formats run too: keep it short under sanitizers
  }
}

}  // namespace
}  // namespace keel
