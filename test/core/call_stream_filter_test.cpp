// CallStreamFilter: while a reply streams, call markup never reaches the answer, and call names
// are announced in order. Every case of both parser corpora is streamed one byte at a time and
// split in two at every byte; what was shown plus what finish() returns must be exactly the
// parsed answer, and the names announced exactly the parsed calls'.
#include <gtest/gtest.h>

#include "keel/core/call_stream_filter.hpp"
#include "support/parser_stream_check.hpp"

namespace keel {
namespace {

using testing::ParserCase;

std::vector<ParserCase> all_cases() {
  auto cases = testing::load_parser_corpus(testing::protocol_corpus_dir(), false);
  auto real = testing::load_parser_corpus(testing::real_outputs_dir(), true);
  cases.insert(cases.end(), real.begin(), real.end());
  std::erase_if(cases, [](const ParserCase& c) {
    return !c.load_error.empty() || c.data.value("format", std::string("auto")) != "auto";
  });
  return cases;
}

TEST(CallStreamFilterTest, EveryCorpusCaseStreamedAtEverySplitShowsOnlyTheAnswer) {
  auto parser = UniversalToolCallParser::create("auto");
  ASSERT_TRUE(parser.ok());
  size_t n = 0;
  size_t announced_while_streaming = 0;
  for (const auto& c : all_cases()) {
    size_t early = 0;
    EXPECT_EQ(testing::check_streaming(**parser, c, &early), "") << c.file << ": " << c.name;
    announced_while_streaming += early;
    ++n;
  }
  EXPECT_GT(n, 200u);
  EXPECT_GT(announced_while_streaming, 100u) << "call names should be announced before the reply ends";
  std::printf("streamed %zu cases at every split; %zu call names announced while streaming\n", n,
              announced_while_streaming);
}

TEST(CallStreamFilterTest, ProseStreamsAtOnceAndMarkupIsHeld) {
  auto parser = UniversalToolCallParser::create("auto");
  ASSERT_TRUE(parser.ok());
  std::vector<ToolSpec> tools(1);
  tools[0].name = "get_weather";
  CallStreamFilter f(**parser, tools);
  EXPECT_EQ(f.feed("Let me check ").text, "Let me check");
  EXPECT_EQ(f.feed("the weather.\n<tool").text, " the weather.");
  CallStreamFilter::Output o = f.feed("_call>\n{\"name\": \"get_weather\", \"argu");
  EXPECT_EQ(o.text, "");
  ASSERT_EQ(o.announced.size(), 1u);
  EXPECT_EQ(o.announced[0], "get_weather");
  EXPECT_EQ(f.feed("ments\": {\"city\": \"Paris\"}}\n</tool_call>").text, "");
  CallStreamFilter::Output end = f.finish();
  EXPECT_EQ(end.text, "");
  EXPECT_TRUE(end.announced.empty());
  ASSERT_EQ(f.outcome().calls.size(), 1u);
}

TEST(CallStreamFilterTest, MarkupInTheMiddleOfASentenceIsHeldButNamedOnlyOnceRead) {
  auto parser = UniversalToolCallParser::create("auto");
  ASSERT_TRUE(parser.ok());
  std::vector<ToolSpec> tools(1);
  tools[0].name = "get_weather";
  CallStreamFilter f(**parser, tools);
  CallStreamFilter::Output o = f.feed("Use the `<tool_call>{\"name\": \"get_weather\"}</tool_call>` tag.");
  EXPECT_EQ(o.text, "Use the `");
  EXPECT_TRUE(o.announced.empty());
  EXPECT_TRUE(f.finish().announced.empty());
}

TEST(CallStreamFilterTest, AFirstWordThatCannotBeAHeaderIsNotHeld) {
  auto parser = UniversalToolCallParser::create("auto");
  ASSERT_TRUE(parser.ok());
  std::vector<ToolSpec> tools(1);
  tools[0].name = "get_weather";
  CallStreamFilter f(**parser, tools);
  EXPECT_EQ(f.feed("yyyyyyyy").text, "yyyyyyyy");
  CallStreamFilter g(**parser, tools);
  EXPECT_EQ(g.feed("get_wea").text, "");  // may still be a functionary header naming the tool
  EXPECT_EQ(g.feed("ring is fine").text, "get_wearing is fine");
}

TEST(CallStreamFilterTest, ABracketThatIsNotACallIsShownOnceItCannotBeOne) {
  auto parser = UniversalToolCallParser::create("auto");
  ASSERT_TRUE(parser.ok());
  CallStreamFilter f(**parser, {});
  EXPECT_EQ(f.feed("See [get").text, "See");
  EXPECT_EQ(f.feed("_x](https://example.com) and {x}").text, " [get_x](https://example.com) and {x}");
}

TEST(CallStreamFilterTest, ReasoningIsShownAsReasoning) {
  auto parser = UniversalToolCallParser::create("auto");
  ASSERT_TRUE(parser.ok());
  CallStreamFilter f(**parser, {});
  CallStreamFilter::Output o = f.feed("<think>plan it</th");
  EXPECT_EQ(o.text, "");
  EXPECT_EQ(o.reasoning, "plan it");
  o = f.feed("ink>The answer.");
  EXPECT_EQ(o.text, "The answer.");
  EXPECT_EQ(f.finish().text, "");
}

}  // namespace
}  // namespace keel
