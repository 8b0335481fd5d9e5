// Tools that answer with one JSON object declare its schema (ToolSpec::output_schema, MCP's
// outputSchema): each schema compiles, and real outputs, optional members included, match it.
#include <gtest/gtest.h>

#include "data_tool_harness.hpp"
#include "tools/schema_validator.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

void expect_matches_output_schema(DataToolHarness& h, const std::string& tool, const json& args) {
  const ToolSpec& spec = h.registry().find(tool)->spec();
  ASSERT_FALSE(spec.output_schema.empty()) << tool;
  auto schema = keel::detail::CompiledSchema::compile(spec.output_schema);
  ASSERT_TRUE(schema.ok()) << schema.status().to_string();
  json out = h.ok(tool, args);
  Status s = (*schema)->validate(out, tool);
  EXPECT_TRUE(s.ok()) << tool << " " << args.dump() << " gave " << out.dump() << ": " << s.to_string();
}

TEST(ToolOutputSchema, MathAggregateResultsMatch) {
  DataToolHarness h;
  expect_matches_output_schema(h, "math_aggregate", {{"op", "sum"}, {"values", {1, 2, 3}}});
  expect_matches_output_schema(h, "math_aggregate", {{"op", "avg"}, {"values", {1, "2.5", "x"}}});
  expect_matches_output_schema(h, "math_aggregate", {{"op", "count"}, {"values", json::array()}});
  expect_matches_output_schema(h, "math_aggregate", {{"op", "median"}, {"rows", {{{"n", 1}}, {{"n", 4}}}}, {"field", "n"}});
}

TEST(ToolOutputSchema, ParseCsvResultsMatchWithTheirOptionalMembers) {
  DataToolHarness h;
  expect_matches_output_schema(h, "parse_csv", {{"text", "a,b\n1,x\n2,y\n"}});
  expect_matches_output_schema(h, "parse_csv", {{"text", "a,b\n1,2,3\n4\n"}});          // ragged rows
  expect_matches_output_schema(h, "parse_csv", {{"text", "1;2\n3;4\n"}, {"header", false}});  // arrays
  std::string many = "n\n";
  for (int i = 0; i < 30; ++i) many += std::to_string(i) + "\n";
  expect_matches_output_schema(h, "parse_csv", {{"text", many}, {"max_rows", 5}});    // truncated
}

TEST(ToolOutputSchema, AnOutputThatBreaksTheSchemaIsCaught) {
  DataToolHarness h;
  auto schema = keel::detail::CompiledSchema::compile(h.registry().find("math_aggregate")->spec().output_schema);
  ASSERT_TRUE(schema.ok());
  EXPECT_FALSE((*schema)->validate(json{{"op", "sum"}, {"value", "3"}, {"count", 1}, {"skipped", 0}}, "math_aggregate").ok());
  EXPECT_FALSE((*schema)->validate(json{{"op", "sum"}, {"value", 3}}, "math_aggregate").ok());
}

}  // namespace
}  // namespace keel::testing
