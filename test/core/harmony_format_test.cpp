// harmony format: the auto-detection order of the special-token formats, and linear, crash-free
// parsing of large pathological input.
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

TEST(HarmonyFormatTest, SpecialTokenFormatsComeFirstInOrder) {
  std::vector<std::string> names;
  for (const auto& [name, description] : UniversalToolCallParser::formats()) names.push_back(name);
  ASSERT_GE(names.size(), 8u);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 8),
            (std::vector<std::string>{"muse_glimmer", "harmony", "deepseek", "kimi_k2", "command_r7b", "granite",
                                      "mistral", "firefunction"}));
}

TEST(HarmonyFormatTest, LargePathologicalInputIsLinearAndSafe) {
  const std::string call =
      "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{\"a\": [1]}<|call|>";
  EXPECT_EQ(parse("harmony", repeat(call, 1 << 19)).calls.size(), ((1u << 19) + call.size() - 1) / call.size());
  for (std::string_view piece :
       {"<|channel|>", "<|start|>assistant", "<|", "`<|channel|>", "<|channel|>commentary to=functions.f<|message|>{",
        "<|channel|>analysis<|message|>x", "to=functions.f<|channel|>", "<|message|>["}) {
    parse("harmony", repeat(piece, 1 << 19));
    parse("auto", repeat(piece, 1 << 16));  // the other formats run too: keep it short under sanitizers
  }
}

TEST(HarmonyFormatTest, FinalChannelOnlyKeepsTheFraming) {
  // Auto-detection: a reply that is only a final message is harmony, its tokens stripped.
  ParseOutcome out = parse("auto", "<|channel|>final<|message|>Hi<|return|>");
  EXPECT_EQ(out.format, "harmony");
  EXPECT_EQ(out.content, "Hi");
  EXPECT_TRUE(out.calls.empty());
  EXPECT_FALSE(out.error.has_value());
  ParseOutcome started = parse("auto", "<|start|>assistant<|channel|>final<|message|>Hello there.<|end|>");
  EXPECT_EQ(started.format, "harmony");
  EXPECT_EQ(started.content, "Hello there.");
  // Tokens quoted in prose are no framing.
  EXPECT_EQ(parse("auto", "Answers go after `<|channel|>final<|message|>` in harmony.").format, "none");
}

}  // namespace
}  // namespace keel
