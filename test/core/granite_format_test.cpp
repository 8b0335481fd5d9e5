// Granite format: linear, crash-free parsing of large pathological input.
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

TEST(GraniteFormatTest, LargePathologicalInputIsLinearAndSafe) {
  const std::string call = "<|tool_call|>[{\"name\": \"f\", \"arguments\": {\"a\": [1]}}]";
  EXPECT_EQ(parse("granite", repeat(call, 1 << 19)).calls.size(), ((1u << 19) + call.size() - 1) / call.size());
  for (std::string_view piece :
       {"<|tool_call|>", "<|tool_call|> x", "`<|tool_call|>", "<|tool_call|>[", "<|tool_call|>{\"name\": 1}"}) {
    parse("granite", repeat(piece, 1 << 19));
    parse("auto", repeat(piece, 1 << 16));  // the other formats run too: keep it short under sanitizers
  }
}

}  // namespace
}  // namespace keel
