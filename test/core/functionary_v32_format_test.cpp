// Functionary v3.2 format: what the corpus does not assert (the content of a reply made of "all"
// segments only).
#include <gtest/gtest.h>

#include "keel/core/universal_parser.hpp"

namespace keel {
namespace {

ParseOutcome parse(std::string_view format, std::string_view text) {
  auto parser = UniversalToolCallParser::create(format);
  EXPECT_TRUE(parser.ok());
  return (*parser)->parse_full(text, {});
}

TEST(FunctionaryV32FormatTest, AllSegmentsAreContentWithoutTheirHeaders) {
  for (std::string_view format : {"auto", "functionary_v32"}) {
    ParseOutcome out = parse(format, ">>>all\nParis is sunny today.");
    EXPECT_EQ(out.format, "functionary_v32") << format;
    EXPECT_EQ(out.content, "Paris is sunny today.") << format;
    EXPECT_TRUE(out.calls.empty()) << format;
    EXPECT_FALSE(out.error.has_value()) << format;
  }
  ParseOutcome two = parse("auto", ">>>all\nFirst.\n>>>all\nSecond.");
  EXPECT_EQ(two.content, "First.\nSecond.");
  // The prompt may end with ">>>": a reply starting "all\n" is the same.
  EXPECT_EQ(parse("auto", "all\nJust text.").content, "Just text.");
  // ">>>" mid-sentence is prose.
  ParseOutcome prose = parse("auto", "Use >>> to quote.");
  EXPECT_EQ(prose.format, "none");
  EXPECT_EQ(prose.content, "Use >>> to quote.");
}

}  // namespace
}  // namespace keel
