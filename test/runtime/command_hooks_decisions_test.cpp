// PreToolUse and PermissionRequest hooks deciding about calls: exit 2, permissionDecision
// deny/ask/allow, updatedInput (checked against the schema and decided on by the policy), a hook
// never loosening a policy refusal, full-match matchers, and sub-agents' calls meeting the hooks.
#include "runtime/command_hooks_fixture.hpp"

namespace keel::hook_tests {
namespace {

TEST_F(CommandHooksTest, SubAgentsCallsMeetThePreToolUseHooksToo) {
  std::shared_ptr<detail::CommandHooks> h = hooks(on("PreToolUse", "lookup", "echo 'no lookups' >&2; exit 2"));
  offer_spawn_agent(h);
  llm_.push_call("spawn_agent", R"({"task":"look k up"})");
  llm_.push_call("lookup", R"({"key":"k"})");  // the sub-agent's call
  llm_.push_text("could not look it up");      // the sub-agent's answer
  llm_.push_text("done");
  RunOutcome out = run(h, "delegate");
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_EQ(lookups_.load(), 0);
  auto reqs = llm_.requests();
  ASSERT_EQ(reqs.size(), 4u);
  bool told = false;  // the sub-agent's model read the hook's stderr
  for (const Message& m : reqs[2].messages) told |= m.role == Role::kTool && m.content.find("no lookups") != std::string::npos;
  EXPECT_TRUE(told);
}

TEST_F(CommandHooksTest, MatchersMatchTheWholeToolName) {
  llm_.push_call("lookup", R"({"key":"k"})");
  llm_.push_text("ok");
  RunOutcome out = run(hooks(on("PreToolUse", "look", "exit 2")), "look k up");
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_EQ(lookups_.load(), 1);  // "look" is not "lookup"
}

TEST_F(CommandHooksTest, PermissionDecisionDenyRefusesTheCallWithItsReason) {
  llm_.push_call("lookup", R"({"key":"k"})");
  llm_.push_text("ok");
  std::string answer = R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not this key"}})";
  RunOutcome out = run(hooks(on("PreToolUse", "", "echo '" + answer + "'")), "look k up");
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_EQ(lookups_.load(), 0);
  EXPECT_NE(last_tool_message().find("not this key"), std::string::npos) << last_tool_message();
}

TEST_F(CommandHooksTest, PermissionDecisionAskAsksTheApproverAboutACallThePolicyWouldRun) {
  llm_.push_call("lookup", R"({"key":"k"})");
  llm_.push_text("ok");
  std::string answer = R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check the key"}})";
  auto approver = std::make_shared<CountingApprover>();
  approver->verdict = ApprovalVerdict::kDeny;
  RunOutcome out = run(hooks(on("PreToolUse", "", "echo '" + answer + "'")), "look k up", approver);
  ASSERT_TRUE(out.ok) << out.error;
  ASSERT_EQ(approver->asked.size(), 1u);
  EXPECT_NE(approver->asked[0].reason.find("check the key"), std::string::npos);
  EXPECT_EQ(lookups_.load(), 0);
}

TEST_F(CommandHooksTest, PermissionDecisionAllowSkipsTheQuestionThePolicyWouldAsk) {
  llm_.push_call("deploy", R"({"target":"staging"})");
  llm_.push_text("ok");
  std::string answer = R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}})";
  auto approver = std::make_shared<CountingApprover>();
  approver->verdict = ApprovalVerdict::kDeny;
  RunOutcome out = run(hooks(on("PreToolUse", "deploy", "echo '" + answer + "'")), "deploy", approver);
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_TRUE(approver->asked.empty());
  EXPECT_EQ(deployed_, std::vector<std::string>{"staging"});
}

TEST_F(CommandHooksTest, HookAllowNeverOverridesAPolicyDeny) {
  llm_.push_call("deploy", R"({"target":"prod"})");
  llm_.push_text("ok");
  AgentOptions o = options();
  o.approvals.tools["deploy"].mode = ApprovalMode::kDeny;
  o.approvals.tools["deploy"].source = "keel.yaml";
  std::string answer = R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}})";
  auto approver = std::make_shared<CountingApprover>();
  RunOutcome out = run(hooks(on("PreToolUse", "deploy", "echo '" + answer + "'")), "deploy", approver, o);
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_TRUE(deployed_.empty());
  EXPECT_TRUE(approver->asked.empty());
  EXPECT_NE(last_tool_message().find("denied"), std::string::npos) << last_tool_message();
}

TEST_F(CommandHooksTest, UpdatedInputIsWhatRunsAndThePolicySeesIt) {
  llm_.push_call("deploy", R"({"target":"prod"})");
  llm_.push_text("ok");
  std::string answer =
      R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"target":"staging"}}})";
  RunOutcome out = run(hooks(on("PreToolUse", "deploy", "echo '" + answer + "'")), "deploy", nullptr);
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_EQ(deployed_, std::vector<std::string>{"staging"});
  EXPECT_NE(last_tool_message().find("deployed staging"), std::string::npos) << last_tool_message();

  // A policy deny pattern applies to the rewritten arguments too.
  llm_.push_call("deploy", R"({"target":"staging"})");
  llm_.push_text("ok");
  AgentOptions o = options();
  o.approvals.tools["deploy"].deny_patterns = {"prod"};
  std::string to_prod =
      R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"target":"prod"}}})";
  out = run(hooks(on("PreToolUse", "deploy", "echo '" + to_prod + "'")), "deploy", nullptr, o);
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_EQ(deployed_, std::vector<std::string>{"staging"});  // nothing more ran
}

TEST_F(CommandHooksTest, UpdatedInputThatDoesNotFitTheSchemaRefusesTheCall) {
  llm_.push_call("deploy", R"({"target":"prod"})");
  llm_.push_text("ok");
  std::string answer =
      R"({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"where":"prod"}}})";
  RunOutcome out = run(hooks(on("PreToolUse", "deploy", "echo '" + answer + "'")), "deploy", std::make_shared<CountingApprover>());
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_TRUE(deployed_.empty());
  EXPECT_NE(last_tool_message().find("do not fit the tool"), std::string::npos) << last_tool_message();
}

TEST_F(CommandHooksTest, PermissionRequestHookAnswersInsteadOfTheApprover) {
  llm_.push_call("deploy", R"({"target":"staging"})");
  llm_.push_text("ok");
  std::string answer = R"({"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no deploys on Fridays"}}})";
  auto approver = std::make_shared<CountingApprover>();
  RunOutcome out = run(hooks(on("PermissionRequest", "deploy", "echo '" + answer + "'")), "deploy", approver);
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_TRUE(approver->asked.empty());
  EXPECT_TRUE(deployed_.empty());
  EXPECT_NE(last_tool_message().find("no deploys on Fridays"), std::string::npos) << last_tool_message();
}

}  // namespace
}  // namespace keel::hook_tests
