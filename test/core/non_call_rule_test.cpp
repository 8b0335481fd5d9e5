// The rule of what is not a call (src/core/parsing/non_call_rule.hpp): its parts alone, then
// through the universal parser. Every negative here shows call syntax a format would otherwise read.
#include "core/parsing/non_call_rule.hpp"

#include <gtest/gtest.h>

#include "keel/core/universal_parser.hpp"

namespace keel {
namespace {

using detail::example_regions;
using detail::is_placeholder;
using detail::placeholder_argument;

std::string region_text(std::string_view text, size_t i = 0) {
  auto r = example_regions(text);
  if (r.size() <= i) return "(none)";
  return std::string(text.substr(r[i].begin, r[i].end - r[i].begin));
}

TEST(NonCallRegions, FencesOfProgrammingLanguagesAreExamples) {
  EXPECT_EQ(region_text("Try:\n```python\nget_weather(city=\"Paris\")\n```\ndone"),
            "```python\nget_weather(city=\"Paris\")\n```");
  EXPECT_EQ(region_text("~~~bash\ncurl x\n~~~"), "~~~bash\ncurl x\n~~~");
  EXPECT_EQ(region_text("```js\nunclosed"), "```js\nunclosed");  // an unclosed fence runs to the end
  EXPECT_EQ(region_text("```log\n[INFO] started\n```"), "```log\n[INFO] started\n```");
}

TEST(NonCallRegions, CallFencesStayWithTheFormats) {
  EXPECT_TRUE(example_regions("```json\n{\"name\": \"now\"}\n```").empty());
  EXPECT_TRUE(example_regions("```\n{\"name\": \"now\"}\n```").empty());
  EXPECT_TRUE(example_regions("```tool_code\nnow()\n```").empty());
  EXPECT_TRUE(example_regions("```xml\n<tool_call></tool_call>\n```").empty());
}

TEST(NonCallRegions, BlockQuotesButNotFunctionaryHeaders) {
  EXPECT_EQ(region_text("As the docs say:\n> call it like\n> this\nend"), "> call it like\n> this");
  EXPECT_TRUE(example_regions(">>>get_weather\n{\"city\": \"Paris\"}").empty());
  EXPECT_TRUE(example_regions("a -> b\nx>y").empty());
}

TEST(NonCallRegions, LogExcerpts) {
  EXPECT_EQ(region_text("2025-07-30 18:45:21 [INFO] output: <tool_call>\nnext"), "2025-07-30 18:45:21 [INFO] output: <tool_call>");
  EXPECT_EQ(region_text("[ERROR] a\n[ERROR] b"), "[ERROR] a\n[ERROR] b");
  EXPECT_EQ(region_text("INFO: x"), "INFO: x");
  EXPECT_EQ(region_text("time=2024-01-01T00:00:00Z level=INFO msg=x"), "time=2024-01-01T00:00:00Z level=INFO msg=x");
  EXPECT_EQ(region_text("12:30:05 DEBUG y"), "12:30:05 DEBUG y");
  // A date without a time, a word that merely starts like a level, prose: no log.
  EXPECT_TRUE(example_regions("2024-05-01 is a Wednesday.").empty());
  EXPECT_TRUE(example_regions("INFORMATION follows").empty());
  EXPECT_TRUE(example_regions("I will check.").empty());
}

TEST(NonCallPlaceholders, Shapes) {
  for (std::string_view p : {"<CITY>", "<city name>", "<your-city>", "{city}", "{{city}}", "[CITY]", "YOUR_API_KEY",
                             "your-token", "...", "\xE2\x80\xA6", "....."}) {
    EXPECT_TRUE(is_placeholder(p)) << p;
  }
  for (std::string_view v : {"Paris", "<b>bold</b>", "{\"a\": 1}", "[1, 2]", "[Note]", "your city", "yours", ".",
                             "..", "a...", "<>", "{}", "Hi {name}", "YOUR"}) {
    EXPECT_FALSE(is_placeholder(v)) << v;
  }
}

TEST(NonCallPlaceholders, FoundInArguments) {
  auto p = placeholder_argument(R"({"city":"<CITY>","days":3})");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->key, "city");
  EXPECT_EQ(p->value, "<CITY>");
  auto nested = placeholder_argument(R"({"options":{"key":"YOUR_API_KEY"}})");
  ASSERT_TRUE(nested);
  EXPECT_EQ(nested->key, "key");
  auto listed = placeholder_argument(R"({"cc":["a@b.c","..."]})");
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->key, "cc");
  EXPECT_FALSE(placeholder_argument(R"({"city":"Paris","query":"your city"})"));
  EXPECT_FALSE(placeholder_argument(R"({"path":"."})"));
}

class NonCallRuleTest : public ::testing::Test {
 protected:
  ParseOutcome parse(std::string_view text) { return parser_->parse_full(text, tools_); }
  std::unique_ptr<UniversalToolCallParser> parser_ = std::move(UniversalToolCallParser::create("auto")).value();
  std::vector<ToolSpec> tools_ = {{"get_weather", "", "{}", true, true, Risk::kLow, 1000, 100, false},
                                  {"write_file", "", "{}", false, false, Risk::kHigh, 1000, 100, false}};
};

TEST_F(NonCallRuleTest, CallInAPythonFenceIsAnExample) {
  const std::string text = "Mistral writes:\n```python\n[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]\n```";
  auto o = parse(text);
  EXPECT_TRUE(o.calls.empty());
  EXPECT_FALSE(o.error);
  EXPECT_EQ(o.content, text);
}

TEST_F(NonCallRuleTest, CallInABlockQuoteIsAQuotation) {
  const std::string text =
      "The model answered:\n> <tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>\nwhich was never run.";
  auto o = parse(text);
  EXPECT_TRUE(o.calls.empty());
  EXPECT_EQ(o.format, "none");
  EXPECT_EQ(o.content, text);
}

TEST_F(NonCallRuleTest, CallInALogLineIsAQuotedLog) {
  const std::string text =
      "Here is the log:\n2025-07-30 18:45:21 [INFO] <tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}</tool_call>";
  auto o = parse(text);
  EXPECT_TRUE(o.calls.empty());
  EXPECT_EQ(o.content, text);
}

TEST_F(NonCallRuleTest, AFencedScriptInsideACallArgumentBelongsToTheCall) {
  auto o = parse("<tool_call>\n<function=write_file>\n<parameter=path>\na.md\n</parameter>\n<parameter=body>\n"
                 "```python\nprint(1)\n```\n</parameter>\n</function>\n</tool_call>");
  ASSERT_EQ(o.calls.size(), 1u);
  EXPECT_EQ(o.calls[0].name, "write_file");
  EXPECT_NE(o.calls[0].arguments.find("```python"), std::string::npos);
}

TEST_F(NonCallRuleTest, RealCallBesideAQuoteStays) {
  auto o = parse("> quoted\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>");
  ASSERT_EQ(o.calls.size(), 1u);
  EXPECT_EQ(o.content, "> quoted");
}

TEST_F(NonCallRuleTest, PlaceholderCallsBesideProseAreDocumentation) {
  for (std::string_view value : {"<CITY>", "{city}", "YOUR_CITY", "..."}) {
    const std::string text = "To get the weather, reply with\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"" +
                             std::string(value) + "\"}}</tool_call>";
    auto o = parse(text);
    EXPECT_TRUE(o.calls.empty()) << value;
    EXPECT_FALSE(o.error) << value;
    EXPECT_EQ(o.format, "none");
    EXPECT_EQ(o.content, text);
  }
}

TEST_F(NonCallRuleTest, APlaceholderCallAloneIsAnUnfilledCall) {
  auto o = parse("<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"<CITY>\"}}</tool_call>");
  EXPECT_TRUE(o.calls.empty());
  ASSERT_TRUE(o.error);
  EXPECT_NE(o.error->find("placeholder"), std::string::npos);
  EXPECT_NE(o.error->find("offset 58"), std::string::npos) << *o.error;
}

TEST_F(NonCallRuleTest, TheTemplatesCallFormIsDocumentation) {
  const std::string text = "Return each call within tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>";
  auto o = parse(text);
  EXPECT_TRUE(o.calls.empty());
  EXPECT_FALSE(o.error);
  EXPECT_EQ(o.content, text);
}

TEST_F(NonCallRuleTest, UnmarkedSyntaxNamesRegisteredToolsOnly) {
  EXPECT_TRUE(parse("{\"name\": \"teleport\", \"arguments\": {}}").calls.empty());
  EXPECT_TRUE(parse("[teleport(to=\"Mars\")]").calls.empty());
  EXPECT_EQ(parse("[get_weather(city=\"Paris\")]").calls.size(), 1u);
}

TEST_F(NonCallRuleTest, ThinkTagsInInlineCodeAreMentions) {
  const std::string text = "Models write `</think>` before the answer and `<think>` before reasoning.";
  auto o = parse(text);
  EXPECT_TRUE(o.reasoning.empty());
  EXPECT_EQ(o.content, text);
}

}  // namespace
}  // namespace keel
