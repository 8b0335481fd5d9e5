#include "keel/core/tool_call_parser.hpp"

#include <gtest/gtest.h>

namespace keel {
namespace {

class ParserTest : public ::testing::Test {
 protected:
  ParsedReply parse(std::string_view text) { return parser_->parse(text, tools_); }
  std::unique_ptr<ToolCallParser> parser_ = make_default_tool_call_parser();
  std::vector<ToolSpec> tools_ = {{"fs_read", "", "{}", true, true, Risk::kLow, 1000, 100, false},
                                  {"shell", "", "{}", false, false, Risk::kHigh, 1000, 100, false}};
};

TEST_F(ParserTest, Seed004InlineArguments) {
  auto p = parse(R"({"tool":"shell","command":"ls -la"})");
  ASSERT_EQ(p.calls.size(), 1u);
  EXPECT_EQ(p.calls[0].name, "shell");
  EXPECT_EQ(p.calls[0].arguments, R"({"command":"ls -la"})");
  EXPECT_TRUE(p.text.empty());
}

TEST_F(ParserTest, NameArgumentsInFence) {
  auto p = parse("I will read it.\n```json\n{\"name\": \"fs_read\", \"arguments\": {\"path\": \"a.txt\"}}\n```\n");
  ASSERT_EQ(p.calls.size(), 1u);
  EXPECT_EQ(p.calls[0].arguments, R"({"path":"a.txt"})");
  EXPECT_EQ(p.text, "I will read it.");
}

TEST_F(ParserTest, ArgumentsAsEscapedString) {
  auto p = parse(R"({"name": "fs_read", "arguments": "{\"path\": \"b\"}"})");
  ASSERT_EQ(p.calls.size(), 1u);
  EXPECT_EQ(p.calls[0].arguments, R"({"path":"b"})");
}

TEST_F(ParserTest, SeveralTaggedCalls) {
  auto p = parse("<tool_call>{\"name\":\"fs_read\",\"arguments\":{\"path\":\"a\"}}</tool_call>\n"
                 "<tool_call>{\"name\":\"shell\",\"parameters\":{\"command\":\"pwd\"}}</tool_call>");
  ASSERT_EQ(p.calls.size(), 2u);
  EXPECT_EQ(p.calls[1].name, "shell");
  EXPECT_EQ(p.calls[1].arguments, R"({"command":"pwd"})");
}

TEST_F(ParserTest, ArrayOfCalls) {
  auto p = parse(R"([{"name":"fs_read","arguments":{"path":"a"}},{"tool":"shell","command":"ls"}])");
  ASSERT_EQ(p.calls.size(), 2u);
}

TEST_F(ParserTest, ProseWithJsonForUnregisteredToolIsNotACall) {
  auto p = parse("Here is an example config:\n```json\n{\"name\": \"Ada\", \"arguments\": {}}\n```");
  EXPECT_TRUE(p.calls.empty());
  EXPECT_TRUE(p.errors.empty());
  EXPECT_NE(p.text.find("example config"), std::string::npos);
}

TEST_F(ParserTest, PlainDataObjectIsNotACall) {
  auto p = parse(R"({"name": "fs_read", "size": 3})");
  EXPECT_TRUE(p.calls.empty());
}

TEST_F(ParserTest, TaggedUnknownToolIsStillACall) {
  auto p = parse("<tool_call>{\"name\":\"teleport\",\"arguments\":{}}</tool_call>");
  ASSERT_EQ(p.calls.size(), 1u);
  EXPECT_EQ(p.calls[0].name, "teleport");
}

TEST_F(ParserTest, CutOffTaggedCallIsAnErrorNotAGuess) {
  auto p = parse("<tool_call>{\"name\":\"fs_read\",\"arguments\":{\"pa");
  EXPECT_TRUE(p.calls.empty());
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_NE(p.errors[0].find("cut off"), std::string::npos);
}

TEST_F(ParserTest, PlainTextHasNoCalls) {
  auto p = parse("The answer is 42. {not json}");
  EXPECT_TRUE(p.calls.empty());
  EXPECT_EQ(p.text, "The answer is 42. {not json}");
}

}  // namespace
}  // namespace keel
