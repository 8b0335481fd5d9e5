#include <gtest/gtest.h>

#include "data_tool_harness.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::DataToolHarness;
using testing::has;

std::unique_ptr<Tool> fake_tool(std::string name, std::string description, Risk risk = Risk::kLow,
                                bool read_only = true) {
  ToolSpec spec;
  spec.name = std::move(name);
  spec.description = std::move(description);
  spec.risk = risk;
  spec.read_only = read_only;
  return make_tool(spec, [](const json&, const ToolContext&) -> Result<std::string> { return std::string("ok"); });
}

std::vector<std::string> names(const json& out) {
  std::vector<std::string> n;
  for (const json& m : out["matches"]) n.push_back(m["name"]);
  return n;
}

TEST(ToolSearchTest, NameHitsRankAboveDescriptionHits) {
  DataToolHarness h;
  ASSERT_TRUE(h.registry().add(fake_tool("convert_units", "Convert between units; handles csv exports too")).ok());
  ASSERT_TRUE(h.registry().add(fake_tool("csv_to_xlsx", "Write a spreadsheet")).ok());
  const json out = h.ok("tool_search", {{"query", "CSV"}});
  // Names containing the word first, then descriptions; by name within each.
  EXPECT_EQ(names(out), (std::vector<std::string>{"csv_to_xlsx", "parse_csv", "convert_units", "math_aggregate"}));
  EXPECT_EQ(out["total"], 4);
  json expected = json::object();
  expected["name"] = "parse_csv";
  expected["description"] = h.registry().find("parse_csv")->spec().description;
  expected["risk"] = "low";
  expected["read_only"] = true;
  EXPECT_EQ(out["matches"][1], expected);
}

TEST(ToolSearchTest, MoreMatchingWordsRankHigherAndExactNamesFirst) {
  DataToolHarness h;
  ASSERT_TRUE(h.registry().add(fake_tool("delete_file", "Remove a file for good", Risk::kHigh, false)).ok());
  ASSERT_TRUE(h.registry().add(fake_tool("file_delete_all", "Remove every file", Risk::kHigh, false)).ok());
  const json two_words = h.ok("tool_search", {{"query", "delete file"}});
  ASSERT_GE(two_words["matches"].size(), 2u);
  EXPECT_EQ(names(two_words)[0], "delete_file");  // both words in the name; tie broken by name
  EXPECT_EQ(names(two_words)[1], "file_delete_all");
  EXPECT_EQ(two_words["matches"][0]["risk"], "high");
  EXPECT_EQ(two_words["matches"][0]["read_only"], false);
  // The exact name beats a name that contains more of the query's words.
  const json exact = h.ok("tool_search", {{"query", "script"}});
  EXPECT_EQ(names(exact)[0], "script");
}

TEST(ToolSearchTest, LimitNoMatchesAndLaterTools) {
  DataToolHarness h;
  const json limited = h.ok("tool_search", {{"query", "json csv numbers data"}, {"limit", 2}});
  EXPECT_EQ(limited["matches"].size(), 2u);
  EXPECT_GT(limited["total"].get<int>(), 2);
  const json none = h.ok("tool_search", {{"query", "weather forecast"}});
  EXPECT_EQ(none["matches"], json::array());
  EXPECT_TRUE(has(none["note"].get<std::string>(), "5 tools are registered")) << none;
  // A tool added after tool_search is found too: it reads the registry at each call.
  ASSERT_TRUE(h.registry().add(fake_tool("get_weather", "Weather forecast for a city")).ok());
  EXPECT_EQ(names(h.ok("tool_search", {{"query", "weather forecast"}})),
            (std::vector<std::string>{"get_weather"}));
  EXPECT_EQ(h.run("tool_search", {{"query", " -- "}}).status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace keel
