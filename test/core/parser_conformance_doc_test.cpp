// docs/parser-conformance.md is the table `make parser-conformance` prints from the corpora; this
// keeps the published figures equal to the ones the corpus tests assert.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/parser_conformance.hpp"

namespace keel {
namespace {

TEST(ParserConformanceDocTest, ThePublishedTableIsTheOneTheCorporaGive) {
  auto cases = testing::load_parser_corpus(testing::real_outputs_dir(), true);
  auto own = testing::load_parser_corpus(testing::protocol_corpus_dir(), false);
  cases.insert(cases.end(), own.begin(), own.end());
  const std::string made = testing::conformance_markdown(cases);
  std::ifstream in(std::filesystem::path(KEEL_SOURCE_DIR) / "docs/parser-conformance.md", std::ios::binary);
  std::stringstream published;
  published << in.rdbuf();
  EXPECT_EQ(published.str(), made) << "docs/parser-conformance.md is out of date: run `make parser-conformance`";
  EXPECT_NE(made.find("| hermes |"), std::string::npos);
}

}  // namespace
}  // namespace keel
