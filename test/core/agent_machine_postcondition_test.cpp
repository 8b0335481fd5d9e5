// Tool postconditions in the agent machine: a failed postcondition becomes a corrective error
// result with a guard and a stricter note; a second failure of the same tool fails the run.
#include <gtest/gtest.h>

#include <algorithm>

#include "keel/core/agent_machine.hpp"
#include "keel/core/postcondition.hpp"

namespace keel {
namespace {

constexpr const char* kListing = "total 7079928\n[exit code 0]";
constexpr const char* kReason =
    "the output is only the \"total N\" block count that `ls -l` prints before the entries, and no entries";

// The shell as keel declares it: not_metadata_only for calls that run ls.
ToolSpec shell_spec() {
  ToolSpec s;
  s.name = "shell";
  s.description = "runs a command";
  s.risk = Risk::kLow;  // no approvals in these tests
  Postcondition p = Postcondition::not_metadata_only();
  p.ignore_prefixes = {"[exit code "};
  p.applies_to.programs = {"ls"};
  s.postconditions.push_back(std::move(p));
  return s;
}

ToolSpec plain_spec(std::string name) {
  ToolSpec s;
  s.name = std::move(name);
  s.description = "test tool";
  s.read_only = true;
  return s;
}

ModelReply calls(std::vector<std::pair<std::string, std::string>> list) {
  ModelReply r;
  for (auto& [name, args] : list) r.tool_calls.push_back({"", name, args});
  return r;
}

ModelReply text(std::string t) {
  ModelReply r;
  r.text = std::move(t);
  return r;
}

ToolResult ok(const ToolCall& c, std::string content) { return {c.id, c.name, ToolStatus::kOk, std::move(content), false, 1}; }

// Ok results for every call of a RunTools decision, in order.
ToolsFinished finish_all(const Decision& d, std::vector<std::string> outputs) {
  const auto& run = std::get<RunTools>(d.action);
  EXPECT_EQ(run.calls.size(), outputs.size());
  ToolsFinished done;
  for (size_t i = 0; i < run.calls.size() && i < outputs.size(); ++i) done.results.push_back(ok(run.calls[i], outputs[i]));
  return done;
}

std::string continuation_of(const Decision& d) {
  const auto& req = std::get<CallModel>(d.action).request;
  return req.appended.empty() ? "" : req.appended.back().content;
}

size_t count_guards(const Decision& d, GuardKind kind) {
  return static_cast<size_t>(
      std::count_if(d.guards.begin(), d.guards.end(), [&](const GuardEvent& g) { return g.kind == kind; }));
}

std::string failed_line() {
  std::string s = "shell failed its postcondition not_metadata_only: ";
  s.append(kReason).append(" (output: \"total 7079928\")");
  return s;
}

std::string corrective_content() {
  std::string s = "postcondition not_metadata_only failed: ";
  s.append(kReason).append(". The output was: \"total 7079928\". ").append(Postcondition::not_metadata_only().hint);
  return s;
}

class AgentMachinePostconditionTest : public ::testing::Test {
 protected:
  AgentMachine make(AgentConfig cfg = {}) {
    return AgentMachine(cfg, {shell_spec(), plain_spec("fs_read")}, "SYSTEM", "Which file is the biggest?");
  }
  // Runs one round: the model calls `list`, the tools return `outputs`.
  Decision round(AgentMachine& m, std::vector<std::pair<std::string, std::string>> list, std::vector<std::string> outputs) {
    Decision d = m.step(ModelReplied{calls(std::move(list))});
    EXPECT_TRUE(std::holds_alternative<RunTools>(d.action));
    if (!std::holds_alternative<RunTools>(d.action)) return d;
    return m.step(finish_all(d, std::move(outputs)));
  }
};

TEST_F(AgentMachinePostconditionTest, FailureGetsACorrectiveRetryAndAPassingRetryFinishes) {
  auto m = make();
  (void)m.start();
  Decision d = round(m, {{"shell", R"({"command":"ls -lS | head -n 1"})"}}, {kListing});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  ASSERT_EQ(d.guards.size(), 1u);
  EXPECT_EQ(d.guards[0].kind, GuardKind::kPostconditionFailed);
  EXPECT_EQ(guard_kind_name(d.guards[0].kind), "postcondition_failed");
  EXPECT_EQ(d.guards[0].tool, "shell");
  EXPECT_EQ(d.guards[0].call_id, "call_1_1");
  EXPECT_EQ(d.guards[0].detail, failed_line() + "; one corrective retry");

  // The model sees an error result, not the metadata line as data.
  const Message& result = m.history().back();
  EXPECT_EQ(result.role, Role::kTool);
  EXPECT_EQ(result.metadata.at("status"), "error");
  EXPECT_EQ(result.content, corrective_content());
  ASSERT_FALSE(d.committed.empty());
  EXPECT_EQ(d.committed.back().content, corrective_content());

  // The continuation repeats the stricter instruction.
  std::string note = "- " + failed_line();
  note.append(". ").append(Postcondition::not_metadata_only().hint);
  note.append(" This is the one corrective retry: if shell's output fails a postcondition again, the run ends as failed.");
  EXPECT_NE(continuation_of(d).find(note), std::string::npos) << continuation_of(d);
  EXPECT_NE(continuation_of(d).find("shell {\"command\":\"ls -lS | head -n 1\"} → error: postcondition not_metadata_only"),
            std::string::npos)
      << continuation_of(d);

  d = round(m, {{"shell", R"({"command":"ls -S | head -n 1"})"}}, {"big.bin\n[exit code 0]"});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  EXPECT_TRUE(d.guards.empty());
  EXPECT_EQ(m.history().back().content, "big.bin\n[exit code 0]");
  EXPECT_EQ(m.history().back().metadata.at("status"), "ok");
  EXPECT_EQ(continuation_of(d).find("corrective retry"), std::string::npos);

  d = m.step(ModelReplied{text("big.bin is the biggest file.")});
  ASSERT_TRUE(std::holds_alternative<Finish>(d.action));
  EXPECT_EQ(std::get<Finish>(d.action).answer, "big.bin is the biggest file.");
}

TEST_F(AgentMachinePostconditionTest, SecondFailureOfTheSameToolFailsTheRun) {
  auto m = make();
  (void)m.start();
  Decision d = round(m, {{"shell", R"({"command":"ls -lS | head -n 1"})"}}, {kListing});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  // Another command, the same mistake.
  d = round(m, {{"shell", R"({"command":"ls -l --sort=size | head -1"})"}}, {kListing});
  ASSERT_TRUE(std::holds_alternative<Fail>(d.action));
  const Fail& fail = std::get<Fail>(d.action);
  EXPECT_EQ(fail.kind, FailureKind::kGuardrail);
  EXPECT_EQ(fail.reason, failed_line() +
                             " again after a corrective retry. keel does not answer from output that breaks its tool's "
                             "contract; a more capable model or a simpler task may succeed.");
  ASSERT_EQ(d.guards.size(), 1u);
  EXPECT_EQ(d.guards[0].kind, GuardKind::kPostconditionFailed);
  EXPECT_EQ(d.guards[0].call_id, "call_2_1");
  EXPECT_EQ(d.guards[0].detail, failed_line() + " again after a corrective retry; the run ends");
  EXPECT_EQ(m.phase(), AgentPhase::kFailed);
  // The failed result is still committed, so a stored session shows what happened.
  ASSERT_FALSE(d.committed.empty());
  EXPECT_EQ(d.committed.back().role, Role::kTool);
  EXPECT_EQ(d.committed.back().content, corrective_content());
  // Nothing further is accepted.
  EXPECT_TRUE(std::holds_alternative<Fail>(m.step(ModelReplied{text("it is big.bin")}).action));
}

TEST_F(AgentMachinePostconditionTest, FailuresInOneRoundAreOneAttempt) {
  auto m = make();
  (void)m.start();
  Decision d = round(m, {{"shell", R"({"command":"ls -lS a | head -n 1"})"}, {"shell", R"({"command":"ls -lS b | head -n 1"})"}},
                     {kListing, kListing});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action)) << "the model has not seen the stricter note yet";
  EXPECT_EQ(count_guards(d, GuardKind::kPostconditionFailed), 2u);
  d = round(m, {{"shell", R"({"command":"ls -lS c | head -n 1"})"}}, {kListing});
  ASSERT_TRUE(std::holds_alternative<Fail>(d.action));
  EXPECT_EQ(std::get<Fail>(d.action).kind, FailureKind::kGuardrail);
}

TEST_F(AgentMachinePostconditionTest, AnIdenticalRetryIsNotBlockedAsADuplicate) {
  auto m = make();
  (void)m.start();
  Decision d = round(m, {{"shell", R"({"command":"ls -lS | head -n 1"})"}}, {kListing});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  d = m.step(ModelReplied{calls({{"shell", R"({"command":"ls -lS | head -n 1"})"}})});
  ASSERT_TRUE(std::holds_alternative<RunTools>(d.action));  // the failed result is no answer to reuse
  EXPECT_EQ(count_guards(d, GuardKind::kSemanticRepeat), 0u);
}

TEST_F(AgentMachinePostconditionTest, ToolsAndCallsOutsideThePostconditionsAreUnaffected) {
  auto m = make();
  (void)m.start();
  // fs_read declares nothing; a script's "total 42" is not an ls call; errors are not checked.
  Decision d = m.step(ModelReplied{calls({{"fs_read", R"({"path":"sizes.txt"})"}, {"shell", R"({"command":"python3 sum.py"})"}})});
  ASSERT_TRUE(std::holds_alternative<RunTools>(d.action));
  d = m.step(finish_all(d, {"total 12", "total 42\n[exit code 0]"}));
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  EXPECT_TRUE(d.guards.empty());
  const auto& h = m.history();
  EXPECT_EQ(h[h.size() - 2].content, "total 12");
  EXPECT_EQ(h[h.size() - 2].metadata.at("status"), "ok");
  EXPECT_EQ(h.back().content, "total 42\n[exit code 0]");
  EXPECT_EQ(h.back().metadata.at("status"), "ok");

  d = m.step(ModelReplied{calls({{"shell", R"({"command":"ls -l | head -1"})"}})});
  const ToolCall call = std::get<RunTools>(d.action).calls[0];
  ToolsFinished failed;
  failed.results.push_back({call.id, call.name, ToolStatus::kError, "total 12", false, 1});
  d = m.step(failed);
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  EXPECT_EQ(count_guards(d, GuardKind::kPostconditionFailed), 0u);
  EXPECT_EQ(m.history().back().content, "total 12");
}

TEST_F(AgentMachinePostconditionTest, CheckedOnTheFullOutputBeforeTruncation) {
  ToolSpec lines = plain_spec("report");
  lines.postconditions.push_back(Postcondition::at_least_lines(5));
  std::string seen_args;
  lines.postconditions.push_back(Postcondition::custom("sees_arguments", [&](std::string_view, std::string_view args) {
    seen_args = std::string(args);
    return std::optional<std::string>();
  }));
  AgentConfig cfg;
  cfg.result_char_budget = 150;
  AgentMachine m(cfg, {lines}, "SYSTEM", "TASK");
  (void)m.start();
  Decision d = m.step(ModelReplied{calls({{"report", R"({ "b": 1, "a": "x" })"}})});
  std::string output;
  for (int i = 0; i < 5; ++i) output += std::string(100, static_cast<char>('a' + i)) + "\n";
  d = m.step(finish_all(d, {output}));
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  EXPECT_EQ(count_guards(d, GuardKind::kPostconditionFailed), 0u);  // all 5 lines were there
  EXPECT_EQ(count_guards(d, GuardKind::kContextLimit), 1u);         // the model gets a cut copy
  EXPECT_EQ(seen_args, R"({"a":"x","b":1})");                       // canonical arguments
}

TEST_F(AgentMachinePostconditionTest, AFailedPlanStepHaltsThePlan) {
  auto m = make();
  (void)m.start();
  const char* plan = R"({"plan": [{"tool": "shell", "args": {"command": "ls -lS | head -n 1"}, "save_as": "top"}],
                         "reply": "The biggest file: {{tool.top.result}}"})";
  Decision d = m.step(ModelReplied{text(plan)});
  ASSERT_TRUE(std::holds_alternative<RunTools>(d.action));
  d = m.step(finish_all(d, {kListing}));
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action)) << "no answer is filled from the total line";
  EXPECT_EQ(count_guards(d, GuardKind::kPostconditionFailed), 1u);
  EXPECT_EQ(count_guards(d, GuardKind::kPlanHalted), 1u);
  ASSERT_FALSE(d.plan_steps.empty());
  EXPECT_EQ(d.plan_steps.back().state, PlanStepState::kFailed);
  EXPECT_NE(d.plan_steps.back().detail.find("shell returned error: postcondition not_metadata_only failed"),
            std::string::npos)
      << d.plan_steps.back().detail;
}

}  // namespace
}  // namespace keel
