// Command R7B format: what the corpus cannot assert (call ids) and linear,
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

TEST(CommandR7bFormatTest, KeepsToolCallIds) {
  ParseOutcome out = parse("command_r7b",
                           "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"now\", \"parameters\": {}}, "
                           "{\"tool_call_id\": 1, \"tool_name\": \"now\"}]<|END_ACTION|>");
  ASSERT_EQ(out.calls.size(), 2u);
  EXPECT_EQ(out.calls[0].id, "0");
  EXPECT_EQ(out.calls[1].id, "1");
  EXPECT_EQ(out.calls[1].arguments, "{}");
}

TEST(CommandR7bFormatTest, LargePathologicalInputIsLinearAndSafe) {
  const std::string call = "<|START_ACTION|>[{\"tool_name\": \"f\", \"parameters\": {\"a\": [1]}}]<|END_ACTION|>";
  EXPECT_EQ(parse("command_r7b", repeat(call, 1 << 19)).calls.size(), ((1u << 19) + call.size() - 1) / call.size());
  for (std::string_view piece : {"<|START_ACTION|>", "<|START_THINKING|>x", "<|START_RESPONSE|>", "<|",
                                 "`<|START_ACTION|>", "<|START_ACTION|>[", "<|END_ACTION|>{"}) {
    parse("command_r7b", repeat(piece, 1 << 19));
    parse("auto", repeat(piece, 1 << 16));  // the other formats run too: keep it short under sanitizers
  }
}

}  // namespace
}  // namespace keel
