// Runs the two tool-call parser corpora (schema in test/support/parser_corpus.hpp): the cases
// written for keel (test/core/protocol_corpus) and the real model outputs harvested from other
// projects' parser tests and issue threads (test/core/real_outputs, every case cited). Each case
// asserts its calls and content exactly, or its failure and the offset it names.
#include <gtest/gtest.h>

#include <map>

#include "support/parser_corpus.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using testing::ParserCase;

size_t run_corpus(const std::vector<ParserCase>& cases) {
  size_t checked = 0;
  for (const auto& c : cases) {
    std::vector<std::string> diffs = testing::check_parser_case(c);
    std::string all;
    for (const auto& d : diffs) all += "\n  " + d;
    EXPECT_TRUE(diffs.empty()) << c.file << ": " << c.name << (c.cite.empty() ? "" : " [" + c.cite + "]") << all;
    ++checked;
  }
  return checked;
}

TEST(ProtocolCorpusTest, EveryCaseParsesExactlyAsExpected) {
  size_t checked = run_corpus(testing::load_parser_corpus(testing::protocol_corpus_dir(), false));
  EXPECT_GT(checked, 200u);
  std::printf("protocol corpus: %zu cases\n", checked);
}

TEST(RealOutputCorpusTest, EveryHarvestedCaseParsesExactlyAsExpected) {
  std::vector<ParserCase> cases = testing::load_parser_corpus(testing::real_outputs_dir(), true);
  std::map<std::string, size_t> per_source;
  for (const auto& c : cases) ++per_source[c.source];
  size_t checked = run_corpus(cases);
  EXPECT_GT(checked, 300u);
  for (const auto& [source, n] : per_source) std::printf("real outputs: %4zu cases from %s\n", n, source.c_str());
}

TEST(RealOutputCorpusTest, TheLoaderRefusesUncitedCasesAndMalformedFiles) {
  keel::testing::TempDir dir;
  dir.write("a/uncited.json", R"({"source":"x","family":"hermes","cases":[{"name":"n","input":"hi","expect":{}}]})");
  dir.write("b/no_source.json", R"({"family":"hermes","cases":[{"name":"n","cite":"c","input":"hi","expect":{}}]})");
  dir.write("c/bad.json", "{not json");
  dir.write("d/broken_without_offset.json",
            R"({"source":"x","family":"json","cases":[{"name":"n","cite":"c","kind":"broken","input":"hi","expect":{"error":"x"}}]})");
  std::vector<ParserCase> cases = testing::load_parser_corpus(dir.path(), true);
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_NE(cases[0].load_error.find("cites no source"), std::string::npos) << cases[0].load_error;
  EXPECT_NE(cases[1].load_error.find("no \"source\""), std::string::npos) << cases[1].load_error;
  EXPECT_NE(cases[2].load_error.find("not valid JSON"), std::string::npos) << cases[2].load_error;
  std::vector<std::string> diffs = testing::check_parser_case(cases[3]);
  ASSERT_FALSE(diffs.empty());
  EXPECT_NE(diffs[0].find("no error reported"), std::string::npos) << diffs[0];
}

}  // namespace
}  // namespace keel
