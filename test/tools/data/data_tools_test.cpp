// register_data_tools: what it registers, and the tools chained as a plan would chain them.
#include <gtest/gtest.h>

#include <thread>

#include "data_tool_harness.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::DataToolHarness;

TEST(DataToolsTest, RegistersFiveReadOnlyLowRiskTools) {
  DataToolHarness h;
  ASSERT_EQ(h.registry().size(), 5u);
  for (const char* name : {"script", "parse_json", "parse_csv", "math_aggregate", "tool_search"}) {
    Tool* tool = h.registry().find(name);
    ASSERT_NE(tool, nullptr) << name;
    const ToolSpec& s = tool->spec();
    EXPECT_TRUE(s.read_only) << name;
    EXPECT_TRUE(s.concurrency_safe) << name;
    EXPECT_EQ(s.risk, Risk::kLow) << name;
    EXPECT_FALSE(s.description.empty()) << name;
    EXPECT_EQ(json::parse(s.parameters_schema)["additionalProperties"], false) << name;
  }
  for (const char* name : {"parse_json", "parse_csv", "math_aggregate"}) {
    EXPECT_TRUE(h.registry().find(name)->spec().cacheable) << name;
  }
  EXPECT_FALSE(h.registry().find("script")->spec().cacheable);
  EXPECT_FALSE(h.registry().find("tool_search")->spec().cacheable);
  // The executor's timeout leaves room for the sandbox's own, clearer, time limit.
  EXPECT_GT(h.registry().find("script")->spec().effective_timeout_ms(), DataToolOptions().script.timeout_ms);
  EXPECT_EQ(h.run("script", {{"code", "return 1"}, {"extra", 1}}).status().code(), ErrorCode::kInvalidArgument);
}

TEST(DataToolsTest, RefusesBadOptionsAndDuplicates) {
  ToolRegistry registry;
  DataToolOptions bad;
  bad.script.max_memory_bytes = 0;
  EXPECT_EQ(register_data_tools(registry, bad).code(), ErrorCode::kInvalidArgument);
  bad = DataToolOptions();
  bad.csv_max_rows_limit = 1;
  EXPECT_EQ(register_data_tools(registry, bad).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(registry.size(), 0u);
  ASSERT_TRUE(register_data_tools(registry, DataToolOptions()).ok());
  EXPECT_EQ(register_data_tools(registry, DataToolOptions()).code(), ErrorCode::kInvalidArgument);
}

// parse_csv → script (filter rows) → math_aggregate over a field, each step fed the JSON result of
// the one before, as a plan with references would.
TEST(DataToolsTest, CsvThenScriptThenAggregate) {
  DataToolHarness h;
  const json table = h.ok("parse_csv", {{"text",
                                         "region;product;units;price\n"
                                         "north;apple;10;1,5\n"
                                         "south;apple;4;2\n"
                                         "north;pear;7;3\n"
                                         "north;plum;;4\n"
                                         "east;pear;12;2.5\n"}});
  ASSERT_EQ(table["row_count"], 5);
  EXPECT_EQ(table["delimiter"], ";");

  const json filtered = h.ok(
      "script",
      {{"code",
        "local out = {} for _, r in ipairs(inputs.rows) do "
        "if r.region == 'north' then out[#out + 1] = {product = r.product, units = r.units} end end "
        "print('kept ' .. #out .. ' of ' .. #inputs.rows) return out"},
       {"inputs", table}});
  ASSERT_TRUE(filtered["result"].is_array()) << filtered;
  EXPECT_EQ(filtered["result"].size(), 3u);
  EXPECT_EQ(filtered["output"], "kept 3 of 5\n");
  // The empty units field was null in the CSV, so nil in Lua: the row has no units member.
  EXPECT_EQ(filtered["result"][2], json::parse(R"({"product": "plum"})"));

  const json total =
      h.ok("math_aggregate", {{"op", "sum"}, {"rows", filtered["result"]}, {"field", "units"}});
  EXPECT_EQ(total, json::parse(R"({"op": "sum", "value": 17, "count": 2, "skipped": 1})"));
  const json median = h.ok("math_aggregate", {{"op", "median"}, {"rows", table["rows"]}, {"field", "price"}});
  // "1,5" is text, not 1.5: skipped.
  EXPECT_EQ(median, json::parse(R"({"op": "median", "value": 2.75, "count": 4, "skipped": 1})"));

  // parse_json selects the same numbers out of the script's JSON text.
  const json units =
      h.ok("parse_json", {{"text", filtered["result"].dump()}, {"path", "$[*].units"}});
  EXPECT_EQ(units, json({10, 7}));
}

TEST(DataToolsTest, ScriptsRunConcurrently) {
  DataToolHarness h;
  std::vector<std::thread> threads;
  std::vector<json> results(6);
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&h, &results, i] {
      const json args = {{"code", "local s = 0 for k = 1, inputs * 1000 do s = s + k end return s"},
                         {"inputs", i + 1}};
      ToolContext ctx;
      Result<std::string> r = h.registry().find("script")->execute(args, ctx);
      results[i] = r.ok() ? json::parse(*r)["result"] : json(r.status().to_string());
    });
  }
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < results.size(); ++i) {
    const int64_t n = static_cast<int64_t>(i + 1) * 1000;
    EXPECT_EQ(results[i], n * (n + 1) / 2) << i;
  }
}

}  // namespace
}  // namespace keel
