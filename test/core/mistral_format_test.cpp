// Mistral format: what the corpus cannot assert (call ids) and linear,
// crash-free parsing of large pathological input.
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

TEST(MistralFormatTest, KeepsCallIds) {
  ParseOutcome v3 = parse("mistral",
                          "[TOOL_CALLS][{\"name\": \"now\", \"arguments\": {}, \"id\": \"abc123xyz\"}, "
                          "{\"name\": \"now\", \"arguments\": {}}]");
  ASSERT_EQ(v3.calls.size(), 2u);
  EXPECT_EQ(v3.calls[0].id, "abc123xyz");
  EXPECT_EQ(v3.calls[1].id, "");
  ParseOutcome v11 =
      parse("mistral", "[TOOL_CALLS]fs_read[CALL_ID]a1B2c3D4e[ARGS]{\"path\": \"x\"}[TOOL_CALLS]now[ARGS]{}");
  ASSERT_EQ(v11.calls.size(), 2u);
  EXPECT_EQ(v11.calls[0].id, "a1B2c3D4e");
  EXPECT_EQ(v11.calls[0].name, "fs_read");
  EXPECT_EQ(v11.calls[1].id, "");
}

TEST(MistralFormatTest, LargePathologicalInputIsLinearAndSafe) {
  const std::string call = "[TOOL_CALLS]f[ARGS]{\"a\": [1, {\"b\": \"c\"}]}";
  EXPECT_EQ(parse("mistral", repeat(call, 1 << 19)).calls.size(), ((1u << 19) + call.size() - 1) / call.size());
  for (std::string_view piece : {"[TOOL_CALLS]", "[TOOL_CALLS] x", "`[TOOL_CALLS]", "[THINK]", "[/THINK]",
                                 "[TOOL_CALLS]f[CALL_ID]", "[TOOL_CALLS][{", "[TOOL_CALLS]f[ARGS]{"}) {
    parse("mistral", repeat(piece, 1 << 19));
    parse("auto", repeat(piece, 1 << 16));  // the other formats run too: keep it short under sanitizers
  }
}

TEST(MistralFormatTest, ManyThinkLinesAreReasoning) {
  // Each line opens (and some close) a [THINK] block: linear, all of it reasoning, no error.
  for (std::string_view line : {"[THINK]\n", "[/THINK]\n", "[THINK]{\"a\":1}[/THINK]\n", "[THINK]a[/THINK] answer\n"}) {
    ParseOutcome out = parse("auto", repeat(line, 1 << 20));
    EXPECT_TRUE(out.calls.empty()) << line;
    EXPECT_FALSE(out.error.has_value()) << line;
  }
  ParseOutcome open = parse("auto", repeat("[THINK]\n", 1 << 20));
  EXPECT_EQ(open.format, "mistral");
  EXPECT_EQ(open.content, "");
}

}  // namespace
}  // namespace keel
