// Command hooks of settings files (runtime/command_hooks.hpp) on a real Agent: each event's JSON
// on stdin, exit code 2, timeouts and other exit codes, the Stop and UserPromptSubmit answers,
// continue: false, the environment, and a sandbox that cannot start failing closed.
#include "runtime/command_hooks_fixture.hpp"

namespace keel::hook_tests {
namespace {

TEST_F(CommandHooksTest, EveryEventOfARunGetsItsDocumentedFieldsOnStdin) {
  json settings = merged({on("SessionStart", "startup", record("SessionStart")),
                          on("UserPromptSubmit", "", record("UserPromptSubmit")),
                          on("PreToolUse", "deploy|spawn_agent", record("PreToolUse")),
                          on("PermissionRequest", "deploy", record("PermissionRequest")),
                          on("Notification", "permission_prompt", record("Notification")),
                          on("PostToolUse", "*", record("PostToolUse")), on("SubagentStop", "", record("SubagentStop")),
                          on("Stop", "", record("Stop")), on("SessionEnd", "", record("SessionEnd"))});
  llm_.push_call("deploy", R"({"target":"staging"})");
  llm_.push_call("spawn_agent", R"({"task":"check"})");
  llm_.push_text("sub-agent answer");  // the sub-agent's reply
  llm_.push_text("all done");
  auto approver = std::make_shared<CountingApprover>();
  std::shared_ptr<detail::CommandHooks> h = hooks(settings);
  offer_spawn_agent(h);
  RunOutcome out = run(h, "ship it", approver);
  ASSERT_TRUE(out.ok) << out.error;

  auto start = recorded("SessionStart");
  ASSERT_EQ(start.size(), 1u);
  expect_common(start[0], "SessionStart", ws());
  EXPECT_EQ(start[0]["source"], "startup");

  auto prompt = recorded("UserPromptSubmit");
  ASSERT_EQ(prompt.size(), 1u);
  expect_common(prompt[0], "UserPromptSubmit", ws());
  EXPECT_EQ(prompt[0]["prompt"], "ship it");

  auto pre = recorded("PreToolUse");
  ASSERT_EQ(pre.size(), 2u);
  expect_common(pre[0], "PreToolUse", ws());
  EXPECT_EQ(pre[0]["tool_name"], "deploy");
  EXPECT_EQ(pre[0]["tool_input"], json({{"target", "staging"}}));
  EXPECT_FALSE(pre[0].value("tool_use_id", "").empty());
  EXPECT_EQ(pre[1]["tool_name"], "spawn_agent");

  auto permission = recorded("PermissionRequest");
  ASSERT_EQ(permission.size(), 1u);  // lookup-free run: only deploy needed a question
  expect_common(permission[0], "PermissionRequest", ws());
  EXPECT_EQ(permission[0]["tool_name"], "deploy");
  EXPECT_EQ(permission[0]["tool_input"], json({{"target", "staging"}}));

  auto note = recorded("Notification");
  ASSERT_EQ(note.size(), 1u);
  expect_common(note[0], "Notification", ws());
  EXPECT_EQ(note[0]["notification_type"], "permission_prompt");
  EXPECT_NE(note[0].value("message", "").find("deploy"), std::string::npos);

  auto post = recorded("PostToolUse");
  ASSERT_EQ(post.size(), 2u);
  expect_common(post[0], "PostToolUse", ws());
  EXPECT_EQ(post[0]["tool_name"], "deploy");
  EXPECT_EQ(post[0]["tool_input"], json({{"target", "staging"}}));
  EXPECT_EQ(post[0]["tool_use_id"], pre[0]["tool_use_id"]);
  EXPECT_EQ(post[0]["tool_response"]["content"], "deployed staging");
  EXPECT_EQ(post[0]["tool_response"]["status"], "ok");

  EXPECT_EQ(post[1]["tool_name"], "spawn_agent");
  EXPECT_NE(post[1]["tool_response"]["content"].get<std::string>().find("sub-agent answer"), std::string::npos);

  auto sub = recorded("SubagentStop");
  ASSERT_EQ(sub.size(), 1u);
  expect_common(sub[0], "SubagentStop", ws());
  EXPECT_EQ(sub[0]["stop_hook_active"], false);
  EXPECT_NE(sub[0]["session_id"], start[0]["session_id"]);  // the sub-agent's own run

  auto stop = recorded("Stop");
  ASSERT_EQ(stop.size(), 1u);  // the parent's answer; the sub-agent's fired SubagentStop
  expect_common(stop[0], "Stop", ws());
  EXPECT_EQ(stop[0]["stop_hook_active"], false);

  auto end = recorded("SessionEnd");
  ASSERT_EQ(end.size(), 1u);
  expect_common(end[0], "SessionEnd", ws());
  EXPECT_EQ(end[0]["reason"], "other");
  EXPECT_EQ(end[0]["session_id"], start[0]["session_id"]);
  EXPECT_TRUE(warnings_.empty()) << warnings_.front();
}

TEST_F(CommandHooksTest, PreCompactHookGetsTheTriggerBeforeTheContextIsSummarized) {
  std::vector<Message> earlier;  // plain conversation: only a summary makes it fit
  for (int i = 0; i < 12; ++i) {
    earlier.push_back(Message::user("question " + std::to_string(i) + " " + std::string(300, 'q')));
    earlier.push_back(Message::assistant("answer " + std::to_string(i) + " " + std::string(300, 'a')));
  }
  AgentOptions o = options();
  o.config.context.context_window = 2000;
  o.config.context.recency_rounds = 1;
  llm_.push_text("twelve questions, all answered");
  llm_.push_text("one");
  Agent agent(llm_, tools_, o);
  agent.add_hooks(hooks(merged({on("PreCompact", "auto", record("PreCompact")), on("PreCompact", "manual", record("Manual"))})));
  Result<RunOutcome> out = agent.run_after(earlier, "TASK");
  ASSERT_TRUE(out.ok() && out->ok);
  auto pre = recorded("PreCompact");
  ASSERT_EQ(pre.size(), 1u);
  expect_common(pre[0], "PreCompact", ws());
  EXPECT_EQ(pre[0]["trigger"], "auto");
  EXPECT_TRUE(pre[0].contains("custom_instructions"));
  EXPECT_TRUE(recorded("Manual").empty());  // the matcher is the trigger
}

TEST_F(CommandHooksTest, PreToolUseExitTwoBlocksTheCallAndTheModelReadsStderr) {
  llm_.push_call("lookup", R"({"key":"k"})");
  llm_.push_text("ok");
  RunOutcome out = run(hooks(on("PreToolUse", "lookup", "echo 'lookups are off today' >&2; exit 2")), "look k up");
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_EQ(lookups_.load(), 0);
  EXPECT_NE(last_tool_message().find("lookups are off today"), std::string::npos) << last_tool_message();
}

TEST_F(CommandHooksTest, AHangingHookIsKilledAtItsTimeoutAndTheRunGoesOn) {
  llm_.push_call("lookup", R"({"key":"k"})");
  llm_.push_text("ok");
  auto t0 = std::chrono::steady_clock::now();
  RunOutcome out = run(hooks(on("PreToolUse", "lookup", "sleep 30", 1)), "look k up");
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_EQ(lookups_.load(), 1);
  EXPECT_GE(took, 900);
  EXPECT_LT(took, 5000);
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("'sleep 30'"), std::string::npos) << warnings_[0];
  EXPECT_NE(warnings_[0].find("timeout of 1 s"), std::string::npos) << warnings_[0];
}

TEST_F(CommandHooksTest, OtherExitCodesAreReportedAndDoNotBlock) {
  llm_.push_call("lookup", R"({"key":"k"})");
  llm_.push_text("ok");
  RunOutcome out = run(hooks(on("PreToolUse", "lookup", "echo broken >&2; exit 1")), "look k up");
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_EQ(lookups_.load(), 1);
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("exit code 1"), std::string::npos) << warnings_[0];
  EXPECT_NE(warnings_[0].find("broken"), std::string::npos) << warnings_[0];
}

TEST_F(CommandHooksTest, UserPromptSubmitExitTwoRefusesTheTask) {
  llm_.push_text("never");
  RunOutcome out = run(hooks(on("UserPromptSubmit", "", "echo 'no secrets in prompts' >&2; exit 2")), "the key is 123");
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.error.find("no secrets in prompts"), std::string::npos) << out.error;
  EXPECT_TRUE(llm_.requests().empty());  // the model never saw it
}

TEST_F(CommandHooksTest, UserPromptSubmitAndSessionStartOutputReachTheModel) {
  llm_.push_text("ok");
  RunOutcome out = run(hooks(merged({on("UserPromptSubmit", "", "echo 'branch: main'"),
                                     on("SessionStart", "", R"(echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"tests: make check"}}')")})),
                       "hello");
  ASSERT_TRUE(out.ok) << out.error;
  auto reqs = llm_.requests();
  ASSERT_EQ(reqs.size(), 1u);
  std::string all;
  for (const Message& m : reqs[0].messages) all += m.content + "\n";
  EXPECT_NE(all.find("branch: main"), std::string::npos) << all;
  EXPECT_NE(all.find("tests: make check"), std::string::npos) << all;
}

TEST_F(CommandHooksTest, StopHookBlockRunsAnotherRoundOnceWithStopHookActive) {
  // Blocks while stop_hook_active is false, then lets the run end.
  std::string command = record("Stop") +
                        R"(; grep -q '"stop_hook_active":true' "$KEEL_PROJECT_DIR/Stop.jsonl" || { echo 'run the tests first' >&2; exit 2; })";
  llm_.push_text("first answer");
  llm_.push_text("tests pass");
  RunOutcome out = run(hooks(on("Stop", "", command)), "fix it");
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_EQ(out.answer, "tests pass");
  auto stops = recorded("Stop");
  ASSERT_EQ(stops.size(), 2u);
  EXPECT_EQ(stops[0]["stop_hook_active"], false);
  EXPECT_EQ(stops[1]["stop_hook_active"], true);
  auto reqs = llm_.requests();
  ASSERT_EQ(reqs.size(), 2u);
  bool told = false;  // the hook's stderr is the next user message
  for (const Message& m : reqs[1].messages) told |= m.role == Role::kUser && m.content == "run the tests first";
  EXPECT_TRUE(told);
}

TEST_F(CommandHooksTest, AStopHookThatAlwaysBlocksEndsAtTheRoundLimit) {
  for (int i = 0; i < 10; ++i) llm_.push_text("answer " + std::to_string(i));
  AgentOptions o = options();
  o.config.max_rounds = 3;
  RunOutcome out = run(hooks(on("Stop", "", "echo 'keep going' >&2; exit 2")), "go", nullptr, o);
  EXPECT_LE(llm_.requests().size(), 4u);
  EXPECT_TRUE(out.ok) << out.error;
}

TEST_F(CommandHooksTest, ContinueFalseStopsTheRunWithStopReason) {
  llm_.push_call("lookup", R"({"key":"k"})");
  llm_.push_text("never");
  RunOutcome out = run(hooks(on("PostToolUse", "", R"(echo '{"continue":false,"stopReason":"budget spent"}')")), "look");
  EXPECT_FALSE(out.ok);
  EXPECT_EQ(out.failure, FailureKind::kAborted);
  EXPECT_NE(out.error.find("budget spent"), std::string::npos) << out.error;
  EXPECT_EQ(llm_.requests().size(), 1u);
}

TEST_F(CommandHooksTest, PostToolUseBlockAndContextAreAddedToTheResult) {
  llm_.push_call("lookup", R"({"key":"k"})");
  llm_.push_text("ok");
  std::string answer = R"({"decision":"block","reason":"the value is stale","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"refresh with --force"}})";
  RunOutcome out = run(hooks(on("PostToolUse", "lookup", "echo '" + answer + "'")), "look");
  ASSERT_TRUE(out.ok) << out.error;
  std::string result = last_tool_message();
  EXPECT_NE(result.find("value of k"), std::string::npos) << result;
  EXPECT_NE(result.find("the value is stale"), std::string::npos) << result;
  EXPECT_NE(result.find("refresh with --force"), std::string::npos) << result;
}

TEST_F(CommandHooksTest, IdenticalCommandsOfOneEventRunOnce) {
  json settings = merged({on("SessionStart", "", record("Once")), on("SessionStart", "startup", record("Once"))});
  llm_.push_text("ok");
  ASSERT_TRUE(run(hooks(settings), "hi").ok);
  EXPECT_EQ(recorded("Once").size(), 1u);
}

TEST_F(CommandHooksTest, HooksSeeTheProjectDirAndNotKeelsSecrets) {
  ::setenv("OPENAI_API_KEY", "sk-not-for-hooks", 1);
  llm_.push_text("ok");
  ASSERT_TRUE(run(hooks(on("SessionStart", "", "env > \"$CLAUDE_PROJECT_DIR/env.txt\"")), "hi").ok);
  ::unsetenv("OPENAI_API_KEY");
  std::string env = testing::read_file(ws_.path() / "env.txt");
  EXPECT_NE(env.find("KEEL_PROJECT_DIR=" + ws()), std::string::npos) << env;
  EXPECT_NE(env.find("CLAUDE_PROJECT_DIR=" + ws()), std::string::npos) << env;
  EXPECT_EQ(env.find("sk-not-for-hooks"), std::string::npos) << env;
}

TEST_F(CommandHooksTest, ASandboxThatCannotStartFailsClosed) {
  SandboxPolicy sandbox;
  sandbox.mode = SandboxMode::kWorkspaceWrite;
  sandbox.bwrap_path = (ws_.path() / "no-such-bwrap").string();
  llm_.push_text("ok");
  ASSERT_TRUE(run(hooks(on("SessionStart", "", "touch \"$KEEL_PROJECT_DIR/ran\""), sandbox), "hi").ok);
  EXPECT_FALSE(std::filesystem::exists(ws_.path() / "ran"));
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_NE(warnings_[0].find("did not run"), std::string::npos) << warnings_[0];
}

}  // namespace
}  // namespace keel::hook_tests
