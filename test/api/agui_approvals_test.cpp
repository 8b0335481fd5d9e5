// POST /agui under keel serve's approvals: a call the operator's policy asks about waits for a
// person's decision (PendingInput, which /api/approvals serves), the stream says so with CUSTOM
// keel.approval_requested, and the run goes on with the decision (an ask_user question likewise,
// through /api/questions); no decision in time, or a client that leaves, ends the wait with a
// denial and drops the pending item.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "api/agui_endpoint_fixture.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

class AguiApprovalsTest : public AguiEndpointFixture {
 protected:
  void start_confirming() {
    ApprovalPolicy confirm_everything;
    confirm_everything.override_mode = ApprovalMode::kConfirm;
    confirm_everything.override_source = "test";
    approvals_wait_ = true;
    start({}, confirm_everything);
  }
  // The approvals waiting now, after waiting up to 10 s for at least one.
  std::vector<api::PendingApproval> waiting_approvals() {
    for (int i = 0; i < 2000 && pending_.approvals().empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return pending_.approvals();
  }
  std::future<std::optional<RawHttpResponse>> post_async(const json& input) {
    return std::async(std::launch::async, [this, body = input.dump()] { return post(std::string_view(body)); });
  }
};

TEST_F(AguiApprovalsTest, AnApprovedCallRunsOnceAPersonDecides) {
  start_confirming();
  mock_.push(mock_stream(reply("Let me look.", {call("call_1", "fs_list", R"({"path":"."})")})));
  mock_.push(mock_stream(reply("It holds notes.txt.")));
  auto answer = post_async(agui_input("thread-ok", json::array({agui_user("u1", "List the folder")}), "run-ok"));

  const std::vector<api::PendingApproval> waiting = waiting_approvals();
  ASSERT_EQ(waiting.size(), 1u);
  EXPECT_EQ(waiting[0].request.call.name, "fs_list");
  EXPECT_EQ(waiting[0].id, waiting[0].run_id + ":call_1");
  EXPECT_FALSE(waiting[0].session_id.empty());
  EXPECT_EQ(answer.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout) << "the run waits";
  ASSERT_TRUE(pending_.decide(waiting[0].id, ApprovalVerdict::kAllow, "looks fine").ok());

  std::optional<RawHttpResponse> r = answer.get();
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const std::vector<json> events = agui_events(r->body);
  EXPECT_EQ(agui_types(events),
            (std::vector<std::string>{"RUN_STARTED", "STATE_SNAPSHOT", "STATE_SNAPSHOT", "TEXT_MESSAGE_START",
                                      "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TOOL_CALL_START", "TOOL_CALL_ARGS",
                                      "TOOL_CALL_END", "CUSTOM", "STATE_SNAPSHOT", "CUSTOM", "TOOL_CALL_RESULT",
                                      "STATE_SNAPSHOT", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT",
                                      "TEXT_MESSAGE_END", "STATE_SNAPSHOT", "RUN_FINISHED"}))
      << r->body;
  const std::vector<json> custom = agui_of(events, "CUSTOM");
  ASSERT_EQ(custom.size(), 2u);
  const std::string call_id = agui_of(events, "TOOL_CALL_START").at(0)["toolCallId"];
  EXPECT_EQ(custom[0]["name"], "keel.approval_requested");
  EXPECT_EQ(custom[0]["value"]["approvalId"], waiting[0].id);
  EXPECT_EQ(custom[0]["value"]["toolCallId"], call_id);
  EXPECT_EQ(custom[0]["value"]["toolCallName"], "fs_list");
  EXPECT_EQ(custom[0]["value"]["arguments"], R"({"path":"."})");
  EXPECT_EQ(custom[0]["value"]["decideUrl"], "/api/approvals/" + waiting[0].id);
  EXPECT_FALSE(custom[0]["value"]["reason"].get<std::string>().empty());
  EXPECT_EQ(custom[1]["name"], "keel.approval_decided");
  EXPECT_EQ(custom[1]["value"]["approvalId"], waiting[0].id);
  EXPECT_EQ(custom[1]["value"]["verdict"], "allow");
  EXPECT_EQ(custom[1]["value"]["reason"], "looks fine");
  EXPECT_EQ(agui_of(events, "STATE_SNAPSHOT").at(2)["snapshot"]["keel"]["status"], "waiting_approval");
  EXPECT_NE(agui_of(events, "TOOL_CALL_RESULT").at(0)["content"].get<std::string>().find("notes.txt"),
            std::string::npos);
  EXPECT_NE(model_tool_message(1)["content"].get<std::string>().find("notes.txt"), std::string::npos);
  EXPECT_TRUE(pending_.approvals().empty());
}

TEST_F(AguiApprovalsTest, ADeniedCallNeverRunsAndTheModelReadsTheReason) {
  start_confirming();
  mock_.push(mock_stream(reply("", {call("call_1", "fs_list", R"({"path":"."})")})));
  mock_.push(mock_stream(reply("I will not look.")));
  json input = agui_input("thread-no", json::array({agui_user("u1", "List the folder")}));
  input["forwardedProps"] = {{"approval_mode", "auto"}, {"approve", true}};  // a client cannot loosen the policy
  auto answer = post_async(input);
  const std::vector<api::PendingApproval> waiting = waiting_approvals();
  ASSERT_EQ(waiting.size(), 1u);
  ASSERT_TRUE(pending_.decide(waiting[0].id, ApprovalVerdict::kDeny, "not in this folder").ok());
  std::optional<RawHttpResponse> r = answer.get();
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const std::vector<json> events = agui_events(r->body);
  const std::vector<json> custom = agui_of(events, "CUSTOM");
  ASSERT_EQ(custom.size(), 2u) << r->body;
  EXPECT_EQ(custom[1]["value"]["verdict"], "deny");
  EXPECT_EQ(agui_of(events, "TOOL_CALL_RESULT").at(0)["content"], "not in this folder");
  EXPECT_NE(model_tool_message(1)["content"].get<std::string>().find("not in this folder"), std::string::npos);
  EXPECT_EQ(events.back()["type"], "RUN_FINISHED");
}

TEST_F(AguiApprovalsTest, NoDecisionInTimeIsADenialAndTheItemIsDropped) {
  approval_timeout_ = std::chrono::milliseconds(300);
  start_confirming();
  mock_.push(mock_stream(reply("", {call("call_1", "fs_list", R"({"path":"."})")})));
  mock_.push(mock_stream(reply("Nobody answered.")));
  auto r = post(agui_input("thread-late", json::array({agui_user("u1", "List the folder")})));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const std::vector<json> events = agui_events(r->body);
  const std::string result = agui_of(events, "TOOL_CALL_RESULT").at(0)["content"];
  EXPECT_NE(result.find("no one answered within 300 ms"), std::string::npos) << result;
  EXPECT_EQ(agui_of(events, "CUSTOM").at(1)["value"]["verdict"], "deny");
  EXPECT_TRUE(pending_.approvals().empty());
  EXPECT_EQ(events.back()["type"], "RUN_FINISHED");
}

TEST_F(AguiApprovalsTest, AClientThatLeavesStopsTheWaitAndDropsTheItem) {
  start_confirming();
  mock_.push(mock_stream(reply("", {call("call_1", "fs_list", R"({"path":"."})")})));
  const std::string body = agui_input("thread-gone", json::array({agui_user("u1", "List the folder")})).dump();
  std::string session;
  {
    std::unique_ptr<RawHttpClient> client = open_stream(body);
    ASSERT_TRUE(client);
    ASSERT_EQ(waiting_approvals().size(), 1u);
    session = pending_.approvals().at(0).session_id;
  }  // the client leaves while the call waits
  for (int i = 0; i < 1000 && !pending_.approvals().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(pending_.approvals().empty());
  for (int i = 0; i < 1000; ++i) {  // the run ends aborted; its session stays
    auto runs = store_->list_runs(session);
    if (runs.ok() && !runs->empty() && (*runs)[0].state == RunState::kAborted) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  auto runs = store_->list_runs(session);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].state, RunState::kAborted);
  EXPECT_EQ(mock_.request_count(), 1u) << "no model call after the client left";
}

// An ask_user question of an AG-UI run waits for an answer through /api/questions: the stream
// shows it (CUSTOM keel.question_asked) and the run goes on with the answer.
TEST_F(AguiApprovalsTest, AQuestionWaitsForItsAnswerAndTheRunGoesOnWithIt) {
  asker_ = forwarding_;
  approvals_wait_ = true;
  start();  // ask_user needs no approval under the default policy
  mock_.push(mock_stream(reply("", {call("call_q", "ask_user", R"({"question":"Which file?","options":["a.txt","b.txt"]})")})));
  mock_.push(mock_stream(reply("You chose b.txt.")));
  auto answer = post_async(agui_input("thread-q", json::array({agui_user("u1", "Ask me which file")})));
  std::vector<api::PendingQuestion> asked;
  for (int i = 0; i < 2000 && asked.empty(); ++i) {
    asked = pending_.questions();
    if (asked.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].question.question, "Which file?");
  UserAnswer chosen;
  chosen.option_index = 1;
  ASSERT_TRUE(pending_.answer(asked[0].id, chosen).ok());
  std::optional<RawHttpResponse> r = answer.get();
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const std::vector<json> events = agui_events(r->body);
  const std::vector<json> custom = agui_of(events, "CUSTOM");
  ASSERT_EQ(custom.size(), 1u) << r->body;
  EXPECT_EQ(custom[0]["name"], "keel.question_asked");
  EXPECT_EQ(custom[0]["value"]["questionId"], asked[0].id);
  EXPECT_EQ(custom[0]["value"]["options"], json::array({"a.txt", "b.txt"}));
  EXPECT_EQ(custom[0]["value"]["answerUrl"], "/api/questions/" + asked[0].id);
  EXPECT_NE(model_tool_message(1)["content"].get<std::string>().find("b.txt"), std::string::npos);
  EXPECT_EQ(events.back()["type"], "RUN_FINISHED");
  EXPECT_TRUE(pending_.questions().empty());
}

TEST_F(AguiApprovalsTest, AQuestionNobodyAnswersInTimeIsAToolErrorAndIsDropped) {
  asker_ = forwarding_;
  approval_timeout_ = std::chrono::milliseconds(300);
  approvals_wait_ = true;
  start();
  mock_.push(mock_stream(reply("", {call("call_q", "ask_user", R"({"question":"Which file?"})")})));
  mock_.push(mock_stream(reply("Nobody answered.")));
  auto r = post(agui_input("thread-q2", json::array({agui_user("u1", "Ask me")})));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_NE(model_tool_message(1)["content"].get<std::string>().find("the question was not answered: no one answered within 300 ms"),
            std::string::npos)
      << model_tool_message(1);
  EXPECT_TRUE(pending_.questions().empty());
}

}  // namespace
}  // namespace keel::testing
