// A2A's view of keel's runs (api/a2a_task.hpp): states, the task object, what a parked run waits
// for, and the text of incoming messages.
#include <gtest/gtest.h>

#include "api/a2a_task.hpp"

namespace keel::api::a2a {
namespace {

using nlohmann::json;

TEST(A2aTask, StatesFollowTheRunAndItsPhase) {
  EXPECT_EQ(task_state(RunState::kFinished, std::nullopt), "TASK_STATE_COMPLETED");
  EXPECT_EQ(task_state(RunState::kFailed, std::nullopt), "TASK_STATE_FAILED");
  EXPECT_EQ(task_state(RunState::kAborted, std::nullopt), "TASK_STATE_CANCELED");
  EXPECT_EQ(task_state(RunState::kWaitingApproval, std::nullopt), "TASK_STATE_INPUT_REQUIRED");
  EXPECT_EQ(task_state(RunState::kRunning, RunPhase::kQueued), "TASK_STATE_SUBMITTED");
  EXPECT_EQ(task_state(RunState::kRunning, RunPhase::kRunning), "TASK_STATE_WORKING");
  EXPECT_EQ(task_state(RunState::kRunning, RunPhase::kWaitingAnswer), "TASK_STATE_INPUT_REQUIRED");
  EXPECT_TRUE(final_state("TASK_STATE_CANCELED"));
  EXPECT_FALSE(final_state("TASK_STATE_INPUT_REQUIRED"));
}

TEST(A2aTask, AFinishedRunHasItsAnswerAsArtifactAndItsOwnHistory) {
  RunRecord run;
  run.id = "r_1";
  run.session_id = "s_1";
  run.state = RunState::kFinished;
  run.answer = "42";
  std::vector<StoredMessage> history(4);
  history[0].run_id = "r_0";
  history[0].message = Message::user("an earlier task");
  history[1].run_id = "r_1";
  history[1].seq = 3;
  history[1].message = Message::user("the question");
  history[2].run_id = "r_1";
  history[2].message = Message::assistant("", {ToolCall{"c1", "fs_list", "{}"}});  // no text: left out
  history[3].run_id = "r_1";
  history[3].seq = 5;
  history[3].message = Message::assistant("42");
  json t = task_json(run, std::nullopt, "", &history);
  EXPECT_EQ(t["id"], "r_1");
  EXPECT_EQ(t["contextId"], "s_1");
  EXPECT_EQ(t["status"]["state"], "TASK_STATE_COMPLETED");
  EXPECT_FALSE(t["status"].contains("message"));
  ASSERT_EQ(t["artifacts"].size(), 1u);
  EXPECT_EQ(t["artifacts"][0]["parts"][0]["text"], "42");
  ASSERT_EQ(t["history"].size(), 2u);
  EXPECT_EQ(t["history"][0]["role"], "ROLE_USER");
  EXPECT_EQ(t["history"][0]["parts"][0]["text"], "the question");
  EXPECT_EQ(t["history"][1]["role"], "ROLE_AGENT");

  run.state = RunState::kFailed;
  run.error = "the backend failed";
  t = task_json(run, std::nullopt, "", nullptr);
  EXPECT_TRUE(t["artifacts"].empty());
  EXPECT_FALSE(t.contains("history"));
  EXPECT_EQ(t["status"]["message"]["parts"][0]["text"], "the backend failed");
  EXPECT_EQ(t["status"]["message"]["role"], "ROLE_AGENT");
}

TEST(A2aTask, AParkedRunSaysWhatItWaitsFor) {
  PendingInput pending;
  ApprovalRequest r;
  r.call = ToolCall{"c1", "shell", R"({"command":"rm -rf build"})"};
  r.reason = "shell is a high-risk tool";
  ASSERT_FALSE(pending.take_decisions("r_1", "s_1", {r}).has_value());
  const std::string approval = waiting_for(pending, "r_1");
  EXPECT_NE(approval.find("shell"), std::string::npos) << approval;
  EXPECT_NE(approval.find("rm -rf build"), std::string::npos) << approval;
  EXPECT_NE(approval.find("yes"), std::string::npos) << approval;
  UserQuestion q;
  q.question = "Which environment?";
  q.options = {"staging", "production"};
  q.run_id = "r_2";
  q.session_id = "s_1";
  q.call_id = "c2";
  ASSERT_FALSE(pending.take_answer(q).has_value());
  const std::string question = waiting_for(pending, "r_2");
  EXPECT_NE(question.find("Which environment?"), std::string::npos) << question;
  EXPECT_NE(question.find("[production]"), std::string::npos) << question;
  EXPECT_EQ(waiting_for(pending, "r_3"), "");
}

TEST(A2aTask, MessageTextTakesTextAndDataPartsOnly) {
  Result<std::string> t = message_text(json::parse(R"({"parts":[{"text":"sum these"},{"data":{"a":[1,2]}}]})"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(*t, "sum these\n{\"a\":[1,2]}");
  EXPECT_EQ(message_text(json::parse(R"({"parts":[{"url":"file:///x"}]})")).status().code(), ErrorCode::kFailedPrecondition);
  for (const char* bad : {R"({"parts":[]})", R"({"parts":[{"text":"  "}]})", R"({"parts":[{"other":1}]})", R"([])",
                          R"({"parts":"text"})"}) {
    EXPECT_EQ(message_text(json::parse(bad)).status().code(), ErrorCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace keel::api::a2a
