// Plans: parsing, result normalization, references and placeholders (keel/core/plan.hpp).
#include "keel/core/plan.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "keel/core/prompt_builder.hpp"

namespace keel {
namespace {

using nlohmann::json;

Plan parsed(std::string_view text) {
  auto r = parse_plan(text);
  EXPECT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r.ok() && r->has_value()) << text;
  return r.ok() && r->has_value() ? **r : Plan{};
}

TEST(PlanParseTest, ReadsStepsAliasesAndReply) {
  Plan p = parsed(R"({"plan": [{"tool": "parse_csv", "args": {"text": "a\n1"}, "save_as": "rows", "why": "read it"},
                               {"tool": "math_aggregate", "args": {"op": "sum", "rows": "$tool.rows.rows", "field": "a"}}],
                      "reply": "Sum: {{tool_result.value}}"})");
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[0].tool, "parse_csv");
  EXPECT_EQ(p.steps[0].save_as, "rows");
  EXPECT_FALSE(p.steps[0].alias_inferred);
  EXPECT_EQ(p.steps[0].why, "read it");
  EXPECT_EQ(json::parse(p.steps[0].args), json::parse(R"({"text": "a\n1"})"));
  EXPECT_EQ(p.steps[1].save_as, "_step2");  // inferred, and said so
  EXPECT_TRUE(p.steps[1].alias_inferred);
  EXPECT_EQ(p.reply, "Sum: {{tool_result.value}}");
}

TEST(PlanParseTest, FencedAndRepairedPlansAreRead) {
  Plan fenced = parsed("```json\n{\"plan\": [{\"tool\": \"now\"}], \"reply\": \"{{tool_result}}\"}\n```");
  ASSERT_EQ(fenced.steps.size(), 1u);
  EXPECT_EQ(fenced.steps[0].args, "{}");
  Plan repaired = parsed("{'plan': [{'tool': 'now', 'args': {},}], 'reply': 'at {{tool_result.result}}',}");
  EXPECT_EQ(repaired.steps.size(), 1u);
}

TEST(PlanParseTest, ProseAndCallsAreNotPlans) {
  for (std::string_view text : {"The plan is simple: read the file.", R"({"name": "fs_read", "arguments": {}})",
                                R"({"plans": []})", "", "[1, 2]"}) {
    auto r = parse_plan(text);
    ASSERT_TRUE(r.ok()) << text;
    EXPECT_FALSE(r->has_value()) << text;
  }
}

TEST(PlanParseTest, BrokenPlansSayWhatIsWrong) {
  struct Case {
    const char* text;
    const char* message;
  } cases[] = {
      {R"({"plan": []})", "non-empty array"},
      {R"({"plan": {"tool": "x"}})", "non-empty array"},
      {R"({"plan": [{"args": {}}]})", "step 1 has no \"tool\""},
      {R"({"plan": [{"tool": "a", "args": [1]}]})", "\"args\" must be a JSON object"},
      {R"({"plan": [{"tool": "a", "save_as": "x y"}]})", "simple name"},
      {R"({"plan": [{"tool": "a", "save_as": "x"}, {"tool": "b", "save_as": "x"}]})", "reuses the alias \"x\""},
      {R"({"plan": [{"tool": "a"}], "reply": 3})", "\"reply\" must be a string"},
  };
  for (const auto& c : cases) {
    auto r = parse_plan(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status().message();
  }
}

TEST(PlanResultsTest, NormalizationResolvesFlatFieldsAndResultSnapshot) {
  PlanResults results;
  results.add("w", R"({"temp": 21, "city": "Paris"})");
  results.add("s", R"({"result": {"local": "09:00"}, "ok": true})");
  results.add("n", "42");
  results.add("t", "plain text output");
  EXPECT_EQ(json::parse(*results.normalized("w")), json::parse(R"({"temp":21,"city":"Paris","result":{"temp":21,"city":"Paris"}})"));
  EXPECT_EQ(json::parse(*results.normalized("s"))["local"], "09:00");  // lifted from result
  EXPECT_EQ(*results.hydrate("{{tool.w.temp}} {{tool.w.result.temp}} {{tool.s.local}} {{tool.s.result.local}}"),
            "21 21 09:00 09:00");
  EXPECT_EQ(*results.hydrate("{{tool.n.result}} / {{ tool.t.result }}"), "42 / plain text output");
  EXPECT_EQ(*results.hydrate("last: {{tool_result}}"), R"(last: {"result":"plain text output"})");
  EXPECT_FALSE(results.normalized("nope").has_value());
}

TEST(PlanResultsTest, ReferencesKeepTypesAndReachIntoNestedValues) {
  PlanResults results;
  results.add("rows", R"({"rows": [{"n": 1, "tags": ["a", "b"]}, {"n": 2}], "row_count": 2})");
  auto args = results.resolve_arguments(
      R"({"rows": "$tool.rows.rows", "first": "$tool.rows.rows[0].tags[1]", "count": "$tool.rows.row_count",
          "note": "got $tool.rows.row_count rows.", "nested": {"deep": ["$tool_result.rows[1].n"]}, "plain": "$5"})");
  ASSERT_TRUE(args.ok()) << args.status().message();
  json a = json::parse(*args);
  EXPECT_EQ(a["rows"].size(), 2u);
  EXPECT_EQ(a["first"], "b");
  EXPECT_EQ(a["count"], 2);  // a number, not "2"
  EXPECT_EQ(a["note"], "got 2 rows.");
  EXPECT_EQ(a["nested"]["deep"][0], 2);
  EXPECT_EQ(a["plain"], "$5");
}

TEST(PlanResultsTest, MissingReferencesNameWhatIsMissing) {
  PlanResults results;
  auto before = results.resolve_arguments(R"({"x": "$tool_result.a"})");
  ASSERT_FALSE(before.ok());
  EXPECT_NE(before.status().message().find("no step has run yet"), std::string::npos);
  results.add("w", R"({"temp": 21})");
  auto alias = results.resolve_arguments(R"({"x": "$tool.weather.temp"})");
  ASSERT_FALSE(alias.ok());
  EXPECT_NE(alias.status().message().find("unknown result alias 'weather'"), std::string::npos);
  EXPECT_NE(alias.status().message().find("results so far: w"), std::string::npos);
  auto field = results.resolve_arguments(R"({"x": "$tool.w.humidity"})");
  ASSERT_FALSE(field.ok());
  EXPECT_NE(field.status().message().find("missing reference tool.w.humidity"), std::string::npos);
  auto index = results.resolve_arguments(R"({"x": "$tool.w.temp[3]"})");
  EXPECT_FALSE(index.ok());
  auto reply = results.hydrate("It is {{tool.w.temp}} and {{tool.w.wind}}.");
  ASSERT_FALSE(reply.ok());
  EXPECT_NE(reply.status().message().find("tool.w.wind"), std::string::npos);
}

TEST(PlanResultsTest, OtherBracesAreLeftAlone) {
  PlanResults results;
  results.add("a", R"({"v": 1})");
  EXPECT_EQ(*results.hydrate("{{user.name}} {{ tool.a.v }} {not} {{"), "{{user.name}} 1 {not} {{");
  EXPECT_TRUE(reply_binds_results("total {{tool_result.value}}"));
  EXPECT_TRUE(reply_binds_results("{{ tool.rows.row_count }} rows"));
  EXPECT_FALSE(reply_binds_results("no placeholders {{user}} {{tool.}}"));
  EXPECT_FALSE(reply_binds_results(""));
}

TEST(PlanPromptTest, TheSystemPromptExplainsPlansWhenThereAreToolsToChain) {
  ToolSpec a, b;
  a.name = "parse_csv";
  b.name = "math_aggregate";
  std::vector<ToolSpec> two = {a, b};
  SystemPromptParts parts;
  parts.tools = two;
  const std::string prompt = build_system_prompt(parts);
  EXPECT_NE(prompt.find("\"plan\": [{\"tool\""), std::string::npos);
  EXPECT_NE(prompt.find("$tool.ALIAS.FIELD"), std::string::npos);
  parts.tools = std::span<const ToolSpec>(two).first(1);
  EXPECT_EQ(build_system_prompt(parts).find("\"plan\""), std::string::npos);
}

}  // namespace
}  // namespace keel
