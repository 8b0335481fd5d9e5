// A plan run end to end by the Agent with the real data tools: parse_csv → script (filter rows)
// → math_aggregate, references between the steps, the hydrated reply as the answer, and the
// plan_step events a host sees.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "keel/agent.hpp"
#include "keel/data_tools.hpp"
#include "support/fake_llm.hpp"

namespace keel {
namespace {

struct PlanSteps : Hooks {
  std::vector<PlanStepUpdate> updates;
  void on_plan_step(RunContext&, const PlanStepUpdate& u) override { updates.push_back(u); }
};

AgentOptions options() {
  AgentOptions o;
  o.load_agents_md = false;
  o.stream = false;
  return o;
}

TEST(AgentPlanTest, ScriptAndAggregateChainThroughReferences) {
  ToolRegistry tools;
  ASSERT_TRUE(register_data_tools(tools, DataToolOptions{}).ok());
  testing::FakeLlm llm;
  llm.push_text(R"json({"plan": [
    {"tool": "parse_csv", "args": {"text": "city,amount\nParis,10\nLyon,5\nParis,7.5"}, "save_as": "sales"},
    {"tool": "script", "args": {"code": "local out = {} for _, r in ipairs(inputs) do if r.city == 'Paris' then out[#out + 1] = r end end return out",
                                "inputs": "$tool.sales.rows"}, "save_as": "paris", "why": "keep Paris"},
    {"tool": "math_aggregate", "args": {"op": "sum", "rows": "$tool.paris.result", "field": "amount"}}],
    "reply": "Paris sold {{tool_result.value}} over {{tool._step3.count}} sales ({{tool.sales.row_count}} rows read)."})json");
  Agent agent(llm, tools, options());
  auto steps = std::make_shared<PlanSteps>();
  agent.add_hooks(steps);
  auto out = agent.run("total Paris sales");
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  ASSERT_TRUE(out->ok) << out->error;
  EXPECT_EQ(out->answer, "Paris sold 17.5 over 2 sales (3 rows read).");
  EXPECT_EQ(llm.requests().size(), 1u);  // the whole plan ran on one model call

  std::vector<std::string> seen;
  for (const auto& u : steps->updates) {
    seen.push_back(std::to_string(u.index + 1) + ":" + std::string(plan_step_state_name(u.state)));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"1:planned", "2:planned", "3:planned", "1:executing", "1:done",
                                            "2:executing", "2:done", "3:executing", "3:done"}));
  EXPECT_TRUE(steps->updates[2].alias_inferred);
  EXPECT_EQ(nlohmann::json::parse(steps->updates[5].arguments)["inputs"].size(), 3u);  // resolved before running
}

TEST(AgentPlanTest, AFailingScriptHaltsThePlanAndTheModelRecovers) {
  ToolRegistry tools;
  ASSERT_TRUE(register_data_tools(tools, DataToolOptions{}).ok());
  testing::FakeLlm llm;
  llm.push_text(R"json({"plan": [
    {"tool": "script", "args": {"code": "error('no data')"}, "save_as": "s"},
    {"tool": "math_aggregate", "args": {"op": "sum", "values": "$tool.s.result"}}],
    "reply": "{{tool_result.value}}"})json");
  llm.push_text("The script failed, so there is no total.");
  Agent agent(llm, tools, options());
  auto steps = std::make_shared<PlanSteps>();
  agent.add_hooks(steps);
  auto out = agent.run("sum it");
  ASSERT_TRUE(out.ok() && out->ok);
  EXPECT_EQ(out->answer, "The script failed, so there is no total.");
  ASSERT_EQ(llm.requests().size(), 2u);
  const Message note = llm.requests()[1].messages.back();  // requests() returns a copy
  EXPECT_NE(note.content.find("plan was halted"), std::string::npos) << note.content;
  EXPECT_NE(note.content.find("no data"), std::string::npos) << note.content;
  EXPECT_EQ(steps->updates.back().state, PlanStepState::kSkipped);
}

}  // namespace
}  // namespace keel
