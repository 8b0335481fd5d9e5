// MarkerSet (marker_scan.hpp): the one-pass marker scan agrees with a find() per marker, at the
// edges of the text, for long and overlapping markers, and past its key-byte capacity.
#include "core/parsing/marker_scan.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace keel::detail {
namespace {

std::uint64_t naive(const std::vector<std::pair<std::string, unsigned>>& markers, std::string_view text) {
  std::uint64_t found = 0;
  for (const auto& [m, id] : markers) {
    if (text.find(m) != std::string_view::npos) found |= std::uint64_t{1} << id;
  }
  return found;
}

MarkerSet build(const std::vector<std::pair<std::string, unsigned>>& markers) {
  MarkerSet set;
  for (const auto& [m, id] : markers) set.add(m, id);
  set.build();
  return set;
}

const std::vector<std::pair<std::string, unsigned>> kMarkers = {{"<|channel|>", 0},
                                                                {"<|message|>", 0},
                                                                {"<tool_call>", 1},
                                                                {"<tool_call>", 2},
                                                                {"{", 3},
                                                                {"[", 3},
                                                                {"[TOOL_CALLS]", 4},
                                                                {"THINK]", 4},
                                                                {"functools[", 5},
                                                                {">>>", 6},
                                                                {"```tool_code", 7},
                                                                {"\"parameters\"", 8},
                                                                {"<think>", 62},
                                                                {"</think>", 63},
                                                                {"<|tool_calls_section_begin|>", 9},
                                                                {"<\xEF\xBD\x9Ctool\xE2\x96\x81"
                                                                 "call",
                                                                 10}};

TEST(MarkerScan, FindsMarkersAnywhere) {
  const MarkerSet set = build(kMarkers);
  for (std::string text : {"",
                           "<",
                           "<|channel|",
                           "<|channel|>",
                           "x<|channel|>",
                           "a <tool_call>",
                           "<think",
                           "</think>",
                           "functools[",
                           "functools",
                           "[THINK]",
                           "x]",
                           ">>",
                           ">>>",
                           "``tool_code",
                           "a```tool_code\n",
                           "{\"parameters\": 1}",
                           "\"parameters",
                           "<|tool_calls_section_begin|",
                           "pre <|tool_calls_section_begin|> post",
                           "<\xEF\xBD\x9Ctool\xE2\x96\x81"
                           "calls",
                           "<<|channel|>>",
                           "<|message|><|channel|>[x]{y}"}) {
    EXPECT_EQ(set.scan(text), naive(kMarkers, text)) << text;
    // The same markers deep inside a longer text (the sixteen-byte path).
    std::string padded = std::string(37, 'x') + text + std::string(29, 'y');
    EXPECT_EQ(set.scan(padded), naive(kMarkers, padded)) << padded;
  }
}

TEST(MarkerScan, AgreesWithFindOnGeneratedText) {
  const MarkerSet set = build(kMarkers);
  const std::vector<std::string> atoms = {
      "<|channel|>", "<|", "|>",  "<tool_call>", "<tool",          "<think>", "</think>", "[", "]",  "{", "functools",
      ">>",          ">",  "```", "tool_code",   "\"parameters\"", "THINK",   " ",        "a", "\n", "p", "<"};
  std::mt19937 rng(11);
  for (int n = 0; n < 20000; ++n) {
    std::string text;
    const int len = static_cast<int>(rng() % 24);
    for (int i = 0; i < len; ++i) text += atoms[rng() % atoms.size()];
    ASSERT_EQ(set.scan(text), naive(kMarkers, text)) << text;
  }
}

TEST(MarkerScan, ManyDistinctKeyBytesFallBackToFind) {
  std::vector<std::pair<std::string, unsigned>> markers;
  for (int b = 0x80; b <= 0xFF; ++b)
    markers.push_back({std::string(1, static_cast<char>(b)) + "!", static_cast<unsigned>(b % 60)});
  const MarkerSet set = build(markers);
  for (std::string text : {std::string("x\x90!y"), std::string("\xFF!"), std::string("\xFF"), std::string("none")}) {
    EXPECT_EQ(set.scan(text), naive(markers, text)) << text;
  }
}

}  // namespace
}  // namespace keel::detail
