// The tag-based text formats (hermes, qwen3_coder, glm45, functionary, llama3, gemma): what the
// corpus cannot assert — markdown code skipping, messages that travel in JSON, and linear,
// crash-free parsing of large pathological input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/parsing/formats/text_scan.hpp"
#include "keel/core/universal_parser.hpp"

namespace keel {
namespace {

using detail::MarkdownCode;

ParseOutcome parse(std::string_view format, std::string_view text) {
  std::vector<ToolSpec> tools(2);
  tools[0].name = "get_weather";
  tools[0].parameters_schema = R"({"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}}})";
  tools[1].name = "now";
  auto parser = UniversalToolCallParser::create(format);
  EXPECT_TRUE(parser.ok());
  ParseOutcome out = (*parser)->parse_full(text, tools);
  for (const auto& c : out.calls) EXPECT_TRUE(nlohmann::json::parse(c.arguments, nullptr, false).is_object());
  if (out.error) {
    EXPECT_NO_THROW((void)nlohmann::json(*out.error).dump());
  }
  return out;
}

std::string repeat(std::string_view piece, size_t bytes) {
  std::string s;
  while (s.size() < bytes) s.append(piece);
  return s;
}

TEST(MarkdownCodeTest, SkipsFencesAndInlineSpans) {
  std::string_view text = "a `x` b\n```\ncode\n```\nc `` d\n  ```py\ne";
  MarkdownCode code(text);
  EXPECT_EQ(code.skip(0), 0u);            // 'a'
  EXPECT_EQ(code.skip(3), 5u);            // inside `x`
  EXPECT_EQ(code.skip(6), 6u);            // 'b'
  EXPECT_EQ(code.skip(12), 20u);          // inside the fence, which runs to the end of its closing line
  EXPECT_EQ(code.skip(21), 21u);          // 'c'
  EXPECT_EQ(code.skip(26), 26u);          // 'd': a `` with no partner on its line is literal
  EXPECT_EQ(code.skip(36), text.size());  // an unclosed (indented) fence runs to the end
}

TEST(MarkdownCodeTest, UnpairedBacktickIsLiteral) {
  std::string_view text = "it's a ` tick <tool_call>\nnext";
  MarkdownCode code(text);
  size_t tag = text.find('<');
  EXPECT_EQ(code.skip(tag), tag);
}

TEST(TextFormatsTest, ErrorMessagesAreWellFormedUtf8) {
  // A body that opens with a name (GLM-4.5's shape, names may be non-ASCII) is not Hermes' call.
  EXPECT_TRUE(parse("hermes", "<tool_call>\n\xC3\xA9\xFF</tool_call>").calls.empty());
  EXPECT_TRUE(parse("glm45", "<tool_call>f<arg_key>\xFF\xFE</arg_key>x</tool_call>").error.has_value());
  EXPECT_TRUE(parse("functionary_v32", ">>>f\n\xE2\x82").error.has_value());
  EXPECT_TRUE(parse("qwen3_coder", "<function=f>\n<parameter=a>\n\xFF\n</parameter>\n</function>").calls.empty());
}

TEST(TextFormatsTest, CallsInsideCodeAreExamples) {
  EXPECT_TRUE(parse("auto", "```\n<function=now>{}</function>\n```").calls.empty());
  EXPECT_TRUE(parse("auto", "Write `<tool_call>now</tool_call>` for GLM.").calls.empty());
  EXPECT_EQ(parse("auto", "`a` then <tool_call>{\"name\": \"now\"}</tool_call>").calls.size(), 1u);
}

TEST(TextFormatsTest, LargePathologicalInputIsLinearAndSafe) {
  const std::string hermes =
      "<tool_call>\n{\"name\": \"now\", \"arguments\": {\"a\": [1, {\"b\": \"`c`\"}]}}\n</tool_call>\n";
  EXPECT_EQ(parse("hermes", repeat(hermes, 1 << 18)).calls.size(), ((1u << 18) + hermes.size() - 1) / hermes.size());
  const std::string qwen = "<tool_call>\n<function=now>\n<parameter=a>\nx\n</parameter>\n</function>\n</tool_call>\n";
  EXPECT_EQ(parse("qwen3_coder", repeat(qwen, 1 << 18)).calls.size(), ((1u << 18) + qwen.size() - 1) / qwen.size());
  for (std::string_view piece : {"<tool_call>",
                                 "<tool_call>{",
                                 "<tool_call>{\"a\n",
                                 "x <tool_call> y\n",
                                 "<tool_call>f<arg_key>k",
                                 "<tool_call>f<arg_key>k</arg_key>",
                                 "`",
                                 "a ` b\n",
                                 "```\n",
                                 "` <tool_call>{} ",
                                 "<function=a>",
                                 "<function=a>{",
                                 "<function=a>\n<parameter=b>\nx\n",
                                 "<function=a>\n<parameter=b>\nx\n</function>",
                                 ">>>a\n",
                                 ">>>a\n{",
                                 ">>>a\nx",
                                 "<|python_tag|>",
                                 "\n<|python_tag|>{",
                                 "{\"parameters\": 1, \"name\": \"now\"\n",
                                 "{\n",
                                 "```tool_code\n",
                                 "```tool_code\nf(\n"}) {
    for (std::string_view format :
         {"hermes", "qwen3_coder", "glm45", "llama3", "functionary_v31", "functionary_v32", "gemma", "pythonic"}) {
      parse(format, repeat(piece, 1 << 16));
    }
    parse("auto", repeat(piece, 1 << 15));  // the other formats run too: keep it short under sanitizers
  }
}

}  // namespace
}  // namespace keel
