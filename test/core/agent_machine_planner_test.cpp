// The planner decision: with AgentConfig::planner enabled the machine asks for one planner call
// before round 1, puts the plan into the system prompt as a hint, and goes on without it when the
// planner fails; a resumed run is never planned.
#include <gtest/gtest.h>

#include "keel/core/agent_machine.hpp"
#include "keel/core/prompt_builder.hpp"

namespace keel {
namespace {

ToolSpec spec(std::string name) {
  ToolSpec s;
  s.name = std::move(name);
  s.description = "test tool";
  s.read_only = true;
  return s;
}

std::vector<ToolSpec> tools() { return {spec("fs_read"), spec("web_search")}; }

AgentConfig planning(int64_t timeout_ms = 1500) {
  AgentConfig cfg;
  cfg.planner.enabled = true;
  cfg.planner.timeout_ms = timeout_ms;
  return cfg;
}

ModelReply text(std::string t) {
  ModelReply r;
  r.text = std::move(t);
  return r;
}

TEST(AgentMachinePlanner, TheFirstDecisionAsksForThePlannerCall) {
  AgentMachine m(planning(1500), tools(), "SYSTEM", "list the files");
  Decision d = m.start();
  auto* p = std::get_if<CallPlanner>(&d.action);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(m.phase(), AgentPhase::kAwaitingPlanner);
  EXPECT_EQ(p->timeout_ms, 1500);
  EXPECT_FALSE(p->request.tools_enabled);
  EXPECT_TRUE(p->request.tools.empty());
  EXPECT_EQ(p->request.round, 0);
  ASSERT_EQ(p->request.history.size(), 2u);
  EXPECT_EQ(p->request.history[0].role, Role::kSystem);
  EXPECT_NE(p->request.history[0].content.find("Tools: fs_read, web_search."), std::string::npos)
      << p->request.history[0].content;
  EXPECT_NE(p->request.history[0].content.find("Do not solve the task."), std::string::npos);
  EXPECT_EQ(p->request.history[1].role, Role::kUser);
  EXPECT_EQ(p->request.history[1].content, "list the files");
  // Nothing is committed before the plan is in the system prompt.
  EXPECT_TRUE(d.committed.empty());
  EXPECT_FALSE(d.planner.has_value());
  EXPECT_EQ(m.model_calls(), 0);
}

TEST(AgentMachinePlanner, ThePlanBecomesAHintInTheSystemPrompt) {
  AgentMachine m(planning(), tools(), "SYSTEM", "list the files");
  (void)m.start();
  Decision d = m.step(ModelReplied{text("use fs_read first")});
  auto* call = std::get_if<CallModel>(&d.action);
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->request.round, 1);
  EXPECT_TRUE(call->request.tools_enabled);
  EXPECT_EQ(call->request.history[0].content, "SYSTEM\n\n# Hints\n- planner: use fs_read first");
  EXPECT_EQ(m.history()[0].content, call->request.history[0].content);
  ASSERT_TRUE(d.planner.has_value());
  EXPECT_EQ(d.planner->plan, "use fs_read first");
  EXPECT_TRUE(d.planner->skipped.empty());
  // The system prompt and the task are committed now, the plan in the prompt.
  ASSERT_EQ(d.committed.size(), 2u);
  EXPECT_EQ(d.committed[0].content, call->request.history[0].content);
  EXPECT_EQ(d.committed[1].content, "list the files");
  EXPECT_EQ(m.model_calls(), 1);
  // Reported once.
  d = m.step(ModelReplied{text("done")});
  ASSERT_TRUE(std::holds_alternative<Finish>(d.action));
  EXPECT_FALSE(d.planner.has_value());
}

TEST(AgentMachinePlanner, AnExistingHintsSectionGetsThePlanAsItsLastItem) {
  SystemPromptParts parts;
  std::vector<ToolSpec> t = tools();
  parts.tools = t;
  parts.hints = {"the task mentions files"};
  AgentMachine m(planning(), t, build_system_prompt(parts), "list the files");
  (void)m.start();
  Decision d = m.step(ModelReplied{text("use fs_read")});
  parts.hints.push_back("planner: use fs_read");
  EXPECT_EQ(std::get<CallModel>(d.action).request.history[0].content, build_system_prompt(parts));
}

TEST(AgentMachinePlanner, ALongPlanIsCutTo600Bytes) {
  AgentMachine m(planning(), tools(), "SYSTEM", "task");
  (void)m.start();
  Decision d = m.step(ModelReplied{text(std::string(700, 'x'))});
  ASSERT_TRUE(d.planner.has_value());
  EXPECT_EQ(d.planner->plan, std::string(600, 'x'));
  EXPECT_EQ(m.history()[0].content, "SYSTEM\n\n# Hints\n- planner: " + std::string(600, 'x'));
}

TEST(AgentMachinePlanner, AFailedOrEmptyPlannerIsSkippedAndTheRunGoesOn) {
  {
    AgentMachine m(planning(), tools(), "SYSTEM", "task");
    (void)m.start();
    Decision d = m.step(ModelFailed{Status::DeadlineExceeded("planner timed out")});
    ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
    ASSERT_TRUE(d.planner.has_value());
    EXPECT_TRUE(d.planner->plan.empty());
    EXPECT_EQ(d.planner->skipped, Status::DeadlineExceeded("planner timed out").to_string());
    EXPECT_EQ(m.history()[0].content, "SYSTEM");
    EXPECT_EQ(d.committed.size(), 2u);
    EXPECT_TRUE(d.guards.empty());
  }
  AgentMachine m(planning(), tools(), "SYSTEM", "task");
  (void)m.start();
  Decision d = m.step(ModelReplied{text("")});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  ASSERT_TRUE(d.planner.has_value());
  EXPECT_EQ(d.planner->skipped, "empty reply");
  EXPECT_EQ(std::get<CallModel>(d.action).request.history[0].content, "SYSTEM");
}

TEST(AgentMachinePlanner, OnlyAModelOutcomeOrAnAbortAnswersThePlanner) {
  {
    AgentMachine m(planning(), tools(), "SYSTEM", "task");
    (void)m.start();
    Decision d = m.step(ToolsFinished{});
    ASSERT_TRUE(std::holds_alternative<Fail>(d.action));
    EXPECT_EQ(std::get<Fail>(d.action).kind, FailureKind::kInternal);
    EXPECT_NE(std::get<Fail>(d.action).reason.find("awaiting_planner"), std::string::npos);
  }
  AgentMachine m(planning(), tools(), "SYSTEM", "task");
  (void)m.start();
  Decision d = m.step(Aborted{"stopped"});
  ASSERT_TRUE(std::holds_alternative<Fail>(d.action));
  EXPECT_EQ(std::get<Fail>(d.action).kind, FailureKind::kAborted);
}

TEST(AgentMachinePlanner, AContinuedConversationPlansItsNewTask) {
  std::vector<Message> earlier = {Message::user("first"), Message::assistant("one")};
  AgentMachine m(planning(), tools(), "SYSTEM", earlier, "second");
  Decision d = m.start();
  ASSERT_TRUE(std::holds_alternative<CallPlanner>(d.action));
  EXPECT_EQ(std::get<CallPlanner>(d.action).request.history[1].content, "second");
  d = m.step(ModelReplied{text("use web_search")});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  EXPECT_EQ(std::get<CallModel>(d.action).request.history[0].content, "SYSTEM\n\n# Hints\n- planner: use web_search");
  ASSERT_EQ(d.committed.size(), 1u);
  EXPECT_EQ(d.committed[0].content, "second");
}

TEST(AgentMachinePlanner, AResumedRunIsNotPlanned) {
  std::vector<Message> conv = {Message::system("SYS"), Message::user("TASK")};
  AgentMachine m = AgentMachine::resuming(planning(), tools(), "SYS", conv, 1);
  Decision d = m.start();
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  EXPECT_FALSE(d.planner.has_value());
}

TEST(AgentMachinePlanner, WithoutThePlannerTheFirstDecisionCallsTheModel) {
  AgentMachine m(AgentConfig{}, tools(), "SYSTEM", "task");
  Decision d = m.start();
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  EXPECT_FALSE(d.planner.has_value());
}

TEST(PromptHints, AddingAHintMatchesBuildingThePromptWithIt) {
  SystemPromptParts parts;
  parts.core_instructions = "core";
  parts.project_instructions = "# A heading\n\nbody";
  EXPECT_EQ(add_prompt_hint(build_system_prompt(parts), "h1"), "core\n\n# Project instructions (AGENTS.md)\n# A heading\n\nbody\n\n# Hints\n- h1");
  parts.hints = {"h1"};
  std::string with_one = build_system_prompt(parts);
  parts.hints.push_back("h2");
  EXPECT_EQ(add_prompt_hint(with_one, "h2"), build_system_prompt(parts));
}

}  // namespace
}  // namespace keel
