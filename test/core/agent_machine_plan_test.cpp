// Plans in the agent machine: steps in order, references, approvals, halting, hydration.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "keel/core/agent_machine.hpp"

namespace keel {
namespace {

ToolSpec spec(std::string name, Risk risk = Risk::kLow) {
  ToolSpec s;
  s.name = std::move(name);
  s.read_only = risk == Risk::kLow;
  s.risk = risk;
  return s;
}

AgentMachine make() {
  return AgentMachine(AgentConfig{}, {spec("parse_csv"), spec("math_aggregate"), spec("script"), spec("shell", Risk::kHigh)},
                      "SYSTEM", "TASK");
}

ModelReply text(std::string t) {
  ModelReply r;
  r.text = std::move(t);
  return r;
}

const ToolCall& only_call(const Decision& d) {
  const auto& run = std::get<RunTools>(d.action);
  EXPECT_EQ(run.calls.size(), 1u);
  return run.calls.front();
}

ToolResult ok(const ToolCall& c, std::string content) { return {c.id, c.name, ToolStatus::kOk, std::move(content), false, 1}; }

std::vector<PlanStepState> states(const Decision& d) {
  std::vector<PlanStepState> s;
  for (const auto& u : d.plan_steps) s.push_back(u.state);
  return s;
}

bool has_guard(const Decision& d, GuardKind kind) {
  return std::any_of(d.guards.begin(), d.guards.end(), [&](const GuardEvent& g) { return g.kind == kind; });
}

constexpr const char* kPlan = R"({"plan": [
  {"tool": "parse_csv", "args": {"text": "n\n1\n2"}, "save_as": "rows", "why": "read the data"},
  {"tool": "script", "args": {"code": "return inputs", "inputs": "$tool.rows.rows"}},
  {"tool": "math_aggregate", "args": {"op": "sum", "rows": "$tool._step2.result", "field": "n"}, "save_as": "total"}],
  "reply": "Total {{tool.total.value}} over {{tool.rows.row_count}} rows ({{tool_result.op}})."})";

TEST(AgentMachinePlanTest, RunsStepsInOrderWithReferencesAndHydratesTheReply) {
  AgentMachine m = make();
  m.start();
  Decision d = m.step(ModelReplied{text(kPlan)});
  // All steps planned, the first executing.
  EXPECT_EQ(states(d), (std::vector<PlanStepState>{PlanStepState::kPlanned, PlanStepState::kPlanned,
                                                   PlanStepState::kPlanned, PlanStepState::kExecuting}));
  EXPECT_TRUE(d.plan_steps[1].alias_inferred);
  EXPECT_EQ(d.plan_steps[1].save_as, "_step2");
  EXPECT_NE(d.plan_steps[1].detail.find("_step2"), std::string::npos);  // the inference is logged
  const ToolCall first = only_call(d);
  EXPECT_EQ(first.name, "parse_csv");
  ASSERT_EQ(d.committed.size(), 1u);
  EXPECT_NE(d.committed[0].content.find("\"plan\""), std::string::npos);  // the plan stays in the history

  d = m.step(ToolsFinished{{ok(first, R"({"columns": ["n"], "rows": [{"n": 1}, {"n": 2}], "row_count": 2})")}});
  EXPECT_EQ(states(d), (std::vector<PlanStepState>{PlanStepState::kDone, PlanStepState::kExecuting}));
  const ToolCall second = only_call(d);
  EXPECT_EQ(second.name, "script");
  EXPECT_EQ(nlohmann::json::parse(second.arguments)["inputs"], nlohmann::json::parse(R"([{"n": 1}, {"n": 2}])"));
  EXPECT_EQ(d.plan_steps[1].arguments, second.arguments);  // resolved arguments are reported

  d = m.step(ToolsFinished{{ok(second, R"({"result": [{"n": 1}, {"n": 2}]})")}});
  const ToolCall third = only_call(d);
  EXPECT_EQ(nlohmann::json::parse(third.arguments)["rows"].size(), 2u);

  d = m.step(ToolsFinished{{ok(third, R"({"op": "sum", "value": 3, "count": 2, "skipped": 0})")}});
  ASSERT_TRUE(std::holds_alternative<Finish>(d.action));
  EXPECT_EQ(std::get<Finish>(d.action).answer, "Total 3 over 2 rows (sum).");
  EXPECT_EQ(states(d), (std::vector<PlanStepState>{PlanStepState::kDone}));
  EXPECT_EQ(m.rounds_used(), 1);  // the plan was one model round
}

TEST(AgentMachinePlanTest, AFailedStepHaltsThePlanAndSkipsTheRest) {
  AgentMachine m = make();
  m.start();
  Decision d = m.step(ModelReplied{text(kPlan)});
  const ToolCall first = only_call(d);
  d = m.step(ToolsFinished{{ToolResult{first.id, first.name, ToolStatus::kError, "bad csv", false, 1}}});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));  // back to the model
  EXPECT_EQ(states(d), (std::vector<PlanStepState>{PlanStepState::kFailed, PlanStepState::kSkipped, PlanStepState::kSkipped}));
  EXPECT_TRUE(has_guard(d, GuardKind::kPlanHalted));
  const auto& appended = std::get<CallModel>(d.action).request.appended;
  ASSERT_FALSE(appended.empty());
  EXPECT_NE(appended.back().content.find("plan was halted"), std::string::npos);
  EXPECT_NE(appended.back().content.find("bad csv"), std::string::npos);
}

TEST(AgentMachinePlanTest, AMissingReferenceAbortsBeforeTheStepRuns) {
  AgentMachine m = make();
  m.start();
  Decision d = m.step(ModelReplied{text(R"({"plan": [{"tool": "parse_csv", "args": {"text": "a"}, "save_as": "rows"},
      {"tool": "math_aggregate", "args": {"op": "sum", "rows": "$tool.rowz.rows"}}], "reply": "{{tool_result.value}}"})")});
  const ToolCall first = only_call(d);
  d = m.step(ToolsFinished{{ok(first, R"({"rows": []})")}});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  EXPECT_TRUE(has_guard(d, GuardKind::kPlanHalted));
  ASSERT_EQ(d.plan_steps.size(), 2u);
  EXPECT_EQ(d.plan_steps[1].state, PlanStepState::kFailed);
  EXPECT_NE(d.plan_steps[1].detail.find("unknown result alias 'rowz'"), std::string::npos);
}

TEST(AgentMachinePlanTest, APlanWhoseReplyBindsNothingIsRejectedBeforeAnythingRuns) {
  AgentMachine m = make();
  m.start();
  Decision d = m.step(ModelReplied{text(R"({"plan": [{"tool": "parse_csv", "args": {}}], "reply": "Done!"})")});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));  // a repair round, no tool ran
  EXPECT_TRUE(d.plan_steps.empty());
  EXPECT_TRUE(has_guard(d, GuardKind::kMalformedCall));
  EXPECT_NE(std::get<CallModel>(d.action).request.appended.back().content.find("binds no tool data"), std::string::npos);
}

TEST(AgentMachinePlanTest, HighRiskStepsAskForApprovalAndADenialHaltsThePlan) {
  AgentMachine m = make();
  m.start();
  Decision d = m.step(ModelReplied{text(R"({"plan": [{"tool": "shell", "args": {"command": "ls"}, "save_as": "ls"},
      {"tool": "script", "args": {"code": "return 1"}}], "reply": "{{tool.ls.result}}"})")});
  ASSERT_TRUE(std::holds_alternative<AskApproval>(d.action));
  const auto& ask = std::get<AskApproval>(d.action);
  d = m.step(ApprovalsGiven{{{ask.requests[0].call.id, ApprovalVerdict::kDeny, "not now"}}});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  EXPECT_TRUE(has_guard(d, GuardKind::kPermissionDenied));
  EXPECT_TRUE(has_guard(d, GuardKind::kPlanHalted));
  EXPECT_EQ(states(d), (std::vector<PlanStepState>{PlanStepState::kFailed, PlanStepState::kSkipped}));
}

TEST(AgentMachinePlanTest, AReplyThatCannotBeFilledGoesBackToTheModel) {
  AgentMachine m = make();
  m.start();
  Decision d = m.step(ModelReplied{text(R"({"plan": [{"tool": "parse_csv", "args": {}, "save_as": "a"}],
      "reply": "{{tool.a.value}} and {{tool.a.missing}}"})")});
  d = m.step(ToolsFinished{{ok(only_call(d), R"({"value": 1})")}});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  EXPECT_TRUE(has_guard(d, GuardKind::kPlanHalted));
  EXPECT_NE(std::get<CallModel>(d.action).request.appended.back().content.find("tool.a.missing"), std::string::npos);
}

TEST(AgentMachinePlanTest, AMalformedPlanGetsOneRepairRound) {
  AgentMachine m = make();
  m.start();
  Decision d = m.step(ModelReplied{text(R"({"plan": [{"args": {}}], "reply": "{{tool_result}}"})")});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  EXPECT_TRUE(has_guard(d, GuardKind::kMalformedCall));
  d = m.step(ModelReplied{text(R"({"plan": "nope"})")});
  ASSERT_TRUE(std::holds_alternative<Fail>(d.action));
}

}  // namespace
}  // namespace keel
