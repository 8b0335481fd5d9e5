// The generic JSON format: code fences (what may hold calls, what is an example) beyond the corpus.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "keel/core/universal_parser.hpp"

namespace keel {
namespace {

std::vector<ToolSpec> tools() {
  std::vector<ToolSpec> t(1);
  t[0].name = "get_weather";
  return t;
}

ParseOutcome parse(std::string_view text) {
  auto parser = UniversalToolCallParser::create("auto");
  EXPECT_TRUE(parser.ok());
  return (*parser)->parse_full(text, tools());
}

constexpr std::string_view kCall = R"({"name": "get_weather", "arguments": {"city": "Paris"}})";

TEST(JsonFormatTest, JsonInAnotherLanguagesFenceIsAnExample) {
  for (std::string_view lang : {"python", "js", "text", "bash"}) {
    std::string text =
        "You can call it like this:\n```" + std::string(lang) + "\n" + std::string(kCall) + "\n```\nDone.";
    ParseOutcome out = parse(text);
    EXPECT_TRUE(out.calls.empty()) << lang;
    EXPECT_FALSE(out.error.has_value()) << lang;
    EXPECT_EQ(out.format, "none") << lang;
    EXPECT_EQ(out.content, text) << lang;
  }
}

TEST(JsonFormatTest, CallFencesAndBareCallsAreCalls) {
  for (std::string text :
       {"Checking.\n```json\n" + std::string(kCall) + "\n```", "Checking.\n```JSON\n" + std::string(kCall) + "\n```",
        "Checking.\n```\n" + std::string(kCall) + "\n```",
        "Checking.\n```json\n" + std::string(kCall),  // cut off before the closing fence
        "Checking.\n" + std::string(kCall), "```python\nprint(1)\n```\n" + std::string(kCall)}) {
    ParseOutcome out = parse(text);
    ASSERT_EQ(out.calls.size(), 1u) << text;
    EXPECT_EQ(out.calls[0].name, "get_weather");
    EXPECT_EQ(nlohmann::json::parse(out.calls[0].arguments), nlohmann::json::parse(R"({"city": "Paris"})"));
    EXPECT_EQ(out.format, "json") << text;
  }
}

TEST(JsonFormatTest, ArgumentsKeepTheModelsJsonCompacted) {
  ParseOutcome out =
      parse(R"({"name": "get_weather", "arguments": {"city": "Z\u00fcrich", "n": 1.50e1, "l": [ 1 , "a b" ]}})");
  ASSERT_EQ(out.calls.size(), 1u);
  EXPECT_EQ(out.calls[0].arguments, R"({"city":"Z\u00fcrich","n":1.50e1,"l":[1,"a b"]})");
  EXPECT_EQ(nlohmann::json::parse(out.calls[0].arguments)["city"], "Zürich");
}

}  // namespace
}  // namespace keel
