// keel serve's runs over HTTP: streamed events, the busy lock, approvals and questions that park a
// run without holding a worker, steering, aborting, resumable event streams and restarts.
#include <gtest/gtest.h>

#include "support/api_harness.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

ToolCall tool_call_of(std::string id, std::string name, json args) { return {std::move(id), std::move(name), args.dump()}; }

std::string post_message_to(ApiHarness& h, const std::string& session, const std::string& body) {
  return h.call_json("POST", "/api/sessions/" + session + "/messages", body, 202)["run_id"];
}

TEST(ApiRuns, EventsStreamTheRunToItsAnswer) {
  ApiHarness h;
  std::string s = h.new_session();
  ModelReply reply;
  reply.text = "the **answer** is 42";
  h.model().push(mock_stream(reply, 5));
  SseReader events(h.port(), "/api/sessions/" + s + "/events");
  ASSERT_EQ(events.status(), 200);
  std::string run = post_message_to(h, s, R"({"content":"what is it?"})");
  auto finished = events.wait_for("run_finished");
  ASSERT_TRUE(finished);
  EXPECT_EQ(finished->data["answer"], "the **answer** is 42");
  EXPECT_EQ(finished->data["run_id"], run);
  EXPECT_EQ(finished->data["session_id"], s);
  std::string streamed;
  std::vector<std::string> types;
  int64_t last_id = 0;
  for (const SseEvent& e : events.events()) {
    types.push_back(e.type);
    EXPECT_GT(e.id, last_id);  // ids increase
    last_id = e.id;
    if (e.type == "model_delta") streamed += e.data["text"].get<std::string>();
  }
  EXPECT_EQ(streamed, "the **answer** is 42");
  ASSERT_GE(types.size(), 5u);
  EXPECT_EQ(types[0], "run_queued");
  EXPECT_EQ(types[1], "user_message");
  EXPECT_EQ(types[2], "run_started");
  EXPECT_EQ(h.call_json("GET", "/api/runs/" + run)["state"], "finished");
}

TEST(ApiRuns, ASecondMessageWhileARunIsActiveIs409) {
  ApiHarness h;
  std::string s = h.new_session();
  ModelReply slow;
  slow.text = "slow answer";
  h.model().push(mock_slow_stream(slow, 150));
  std::string run = post_message_to(h, s, R"({"content":"first"})");
  RawHttpResponse busy = h.call("POST", "/api/sessions/" + s + "/messages", R"({"content":"second"})");
  EXPECT_EQ(busy.status, 409);
  json err = json::parse(busy.body);
  EXPECT_EQ(err["error"]["code"], "session_busy");
  EXPECT_EQ(err["error"]["run_id"], run);
  EXPECT_EQ(h.call("DELETE", "/api/sessions/" + s).status, 409);
  ASSERT_TRUE(ApiHarness::eventually([&] { return h.run_state(run) == "finished"; }));
  ASSERT_TRUE(ApiHarness::eventually([&] { return !h.runs().active_run(s); }));
  EXPECT_EQ(h.store().list_runs(s)->size(), 1u);  // the refused message left no run
  h.model().push(mock_text("second answer"));
  post_message_to(h, s, R"({"content":"second"})");
}

TEST(ApiRuns, ApprovalParksTheRunWithoutHoldingAWorker) {
  ApiHarnessOptions o;
  o.workers = 1;
  ApiHarness h(o);
  std::string s1 = h.new_session();
  std::string s2 = h.new_session();
  h.model().push(mock_tool_calls({tool_call_of("c1", "shell", {{"command", "echo approved-run"}})}));
  SseReader events(h.port(), "/api/sessions/" + s1 + "/events");
  std::string run = post_message_to(h, s1, R"({"content":"run echo","approval_mode":"confirm"})");
  auto requested = events.wait_for("approval_requested");
  ASSERT_TRUE(requested);
  std::string approval = requested->data["approval_id"];
  EXPECT_EQ(approval, run + ":c1");
  EXPECT_EQ(requested->data["call"]["name"], "shell");
  auto suspended = events.wait_for("run_suspended");
  ASSERT_TRUE(suspended);
  EXPECT_EQ(suspended->data["reason"], "waiting_approval");
  json pending = h.call_json("GET", "/api/approvals");
  ASSERT_EQ(pending["approvals"].size(), 1u);
  EXPECT_EQ(pending["approvals"][0]["id"], approval);
  EXPECT_EQ(pending["approvals"][0]["call"]["arguments"]["command"], "echo approved-run");
  EXPECT_EQ(h.call_json("GET", "/api/runs/" + run)["state"], "waiting_approval");

  // The only worker is free: another session's run completes meanwhile.
  h.model().push(mock_text("other answer"));
  std::string other = post_message_to(h, s2, R"({"content":"hello"})");
  ASSERT_TRUE(ApiHarness::eventually([&] { return h.run_state(other) == "finished"; }));

  h.model().push(mock_text("done after approval"));
  EXPECT_EQ(h.call("POST", "/api/approvals/" + approval, R"({"decision":"maybe"})").status, 400);
  h.call_json("POST", "/api/approvals/" + approval, R"({"decision":"allow"})");
  int again = h.call("POST", "/api/approvals/" + approval, R"({"decision":"deny"})").status;
  EXPECT_TRUE(again == 409 || again == 404) << again;  // decided and waiting for the run, or consumed
  auto result = events.wait_for("tool_result");
  if (!result) {
    for (const auto& e : events.events()) ADD_FAILURE() << e.type << " " << e.data.dump().substr(0, 300);
  }
  ASSERT_TRUE(result);
  EXPECT_EQ(result->data["status"], "ok");
  EXPECT_NE(result->data["content"].get<std::string>().find("approved-run"), std::string::npos);
  auto finished = events.wait_for("run_finished");
  ASSERT_TRUE(finished);
  EXPECT_EQ(finished->data["answer"], "done after approval");
  EXPECT_EQ(h.call_json("GET", "/api/approvals")["approvals"].size(), 0u);
  EXPECT_EQ(h.call("POST", "/api/approvals/" + approval, R"({"decision":"allow"})").status, 404);
}

TEST(ApiRuns, DeniedApprovalReachesTheModel) {
  ApiHarness h;
  std::string s = h.new_session();
  h.model().push(mock_tool_calls({tool_call_of("c1", "shell", {{"command", "echo nope"}})}));
  SseReader events(h.port(), "/api/sessions/" + s + "/events");
  post_message_to(h, s, R"({"content":"x","approval_mode":"confirm"})");
  auto requested = events.wait_for("approval_requested");
  ASSERT_TRUE(requested);
  ASSERT_TRUE(events.wait_for("run_suspended"));
  h.model().push(mock_text("ok, not running it"));
  h.call_json("POST", "/api/approvals/" + requested->data["approval_id"].get<std::string>(),
              R"({"decision":"deny","reason":"not today"})");
  auto decided = events.wait_for("approval_decided");
  ASSERT_TRUE(decided);
  EXPECT_EQ(decided->data["verdict"], "deny");
  ASSERT_TRUE(events.wait_for("run_finished"));
  std::string last_request = h.model().requests().back().body;
  EXPECT_NE(last_request.find("not today"), std::string::npos);
}

TEST(ApiRuns, AskUserQuestionIsAnsweredOverTheApi) {
  ApiHarness h;
  std::string s = h.new_session();
  h.model().push(mock_tool_calls(
      {tool_call_of("q1", "ask_user", {{"question", "Which environment?"}, {"options", {"staging", "production"}}})}));
  SseReader events(h.port(), "/api/sessions/" + s + "/events");
  std::string run = post_message_to(h, s, R"({"content":"deploy"})");
  auto question = events.wait_for("question");
  ASSERT_TRUE(question);
  EXPECT_EQ(question->data["round"], 1);
  std::string qid = question->data["question_id"];
  EXPECT_EQ(question->data["question"], "Which environment?");
  EXPECT_EQ(question->data["options"], json({"staging", "production"}));
  ASSERT_TRUE(events.wait_for("run_suspended"));
  json listed = h.call_json("GET", "/api/questions");
  ASSERT_EQ(listed["questions"].size(), 1u);
  EXPECT_EQ(h.call_json("GET", "/api/runs/" + run)["state"], "waiting_answer");
  EXPECT_EQ(h.call("POST", "/api/questions/" + qid, R"({"option_index":7})").status, 400);
  h.model().push(mock_text("deploying to staging"));
  json answered = h.call_json("POST", "/api/questions/" + qid, R"({"option_index":0})");
  EXPECT_EQ(answered["answer"], "staging");
  auto finished = events.wait_for("run_finished");
  ASSERT_TRUE(finished);
  EXPECT_EQ(finished->data["answer"], "deploying to staging");
  // The call's only result is the answered one; after the resume its events keep round 1.
  int results = 0;
  for (const SseEvent& e : events.events()) {
    if (e.type == "tool_result") {
      ++results;
      EXPECT_EQ(e.data["status"], "ok");
      EXPECT_EQ(e.data["round"], 1);
    }
  }
  EXPECT_EQ(results, 1);
  std::string last_request = h.model().requests().back().body;
  EXPECT_NE(last_request.find(R"(\"answer\":\"staging\")"), std::string::npos) << last_request;
}

TEST(ApiRuns, SteeringReachesTheNextModelCall) {
  ApiHarness h;
  std::string s = h.new_session();
  ModelReply first;
  first.tool_calls = {tool_call_of("c1", "fs_list", {{"path", "."}})};
  h.model().push(mock_slow_stream(first, 100));
  h.model().push(mock_text("steered answer"));
  SseReader events(h.port(), "/api/sessions/" + s + "/events");
  std::string run = post_message_to(h, s, R"({"content":"look around"})");
  ASSERT_TRUE(events.wait_for("run_started"));
  h.call_json("POST", "/api/runs/" + run + "/steer", R"({"content":"focus on README files"})", 202);
  ASSERT_TRUE(events.wait_for("run_finished"));
  ASSERT_EQ(h.model().request_count(), 2u);
  json second = json::parse(h.model().requests()[1].body);
  bool steered = false;
  for (const json& m : second["messages"]) steered = steered || (m["role"] == "user" && m["content"] == "focus on README files");
  EXPECT_TRUE(steered) << second.dump();
  EXPECT_EQ(h.call("POST", "/api/runs/" + run + "/steer", R"({"content":"late"})").status, 409);
}

TEST(ApiRuns, AbortStopsARunningRun) {
  ApiHarness h;
  std::string s = h.new_session();
  ModelReply slow;
  slow.text = std::string(200, 'x');
  h.model().push(mock_slow_stream(slow, 50));
  SseReader events(h.port(), "/api/runs/placeholder/events");  // unknown run: 404
  EXPECT_EQ(events.status(), 404);
  SseReader session(h.port(), "/api/sessions/" + s + "/events");
  std::string run = post_message_to(h, s, R"({"content":"long"})");
  ASSERT_TRUE(session.wait_for("model_delta"));
  h.call_json("POST", "/api/runs/" + run + "/abort", "", 202);
  auto failed = session.wait_for("run_failed");
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->data["kind"], "aborted");
  ASSERT_TRUE(ApiHarness::eventually([&] { return h.run_state(run) == "aborted"; }));
  EXPECT_EQ(h.call("POST", "/api/runs/" + run + "/abort").status, 409);
}

TEST(ApiRuns, EventStreamsResumeFromLastEventId) {
  ApiHarness h;
  std::string s = h.new_session();
  h.model().push(mock_text("first answer"));
  std::string run = post_message_to(h, s, R"({"content":"one"})");
  ASSERT_TRUE(ApiHarness::eventually([&] { return h.run_state(run) == "finished"; }));
  std::vector<SseEvent> all;
  {
    SseReader full(h.port(), "/api/runs/" + run + "/events");
    ASSERT_TRUE(full.wait_for("run_finished"));
    EXPECT_TRUE(full.wait_for("never", 2000) == std::nullopt);
    EXPECT_TRUE(full.ended());  // a run's stream ends with the run
    all = full.events();
  }
  ASSERT_GT(all.size(), 4u);
  int64_t cut = all[2].id;
  SseReader resumed(h.port(), "/api/sessions/" + s + "/events", "Last-Event-ID: " + std::to_string(cut) + "\r\n");
  ASSERT_TRUE(resumed.wait_for("run_finished"));
  ASSERT_EQ(resumed.events().size(), all.size() - 3);
  EXPECT_EQ(resumed.events().front().id, all[3].id);
  // After a restart the events come from the store.
  h.restart();
  SseReader after(h.port(), "/api/sessions/" + s + "/events?after=" + std::to_string(cut));
  ASSERT_TRUE(after.wait_for("run_finished"));
  EXPECT_EQ(after.events().size(), all.size() - 3);
  // New events continue the numbering.
  h.model().push(mock_text("second answer"));
  post_message_to(h, s, R"({"content":"two"})");
  auto queued = after.wait_for("run_queued");
  ASSERT_TRUE(queued);
  EXPECT_GT(queued->id, all.back().id);
}

TEST(ApiRuns, RestartResumesARunThatWaitedForApproval) {
  ApiHarness h;
  std::string s = h.new_session();
  h.model().push(mock_tool_calls({tool_call_of("c1", "shell", {{"command", "echo after-restart"}})}));
  std::string run;
  {
    SseReader events(h.port(), "/api/sessions/" + s + "/events");
    run = post_message_to(h, s, R"({"content":"x","approval_mode":"confirm"})");
    ASSERT_TRUE(events.wait_for("run_suspended"));
  }
  h.restart();
  ASSERT_TRUE(ApiHarness::eventually([&] { return h.pending().approvals().size() == 1; }));
  EXPECT_EQ(h.pending().approvals()[0].id, run + ":c1");
  EXPECT_EQ(h.model().request_count(), 1u);  // re-asking needed no model call
  h.model().push(mock_text("finished after restart"));
  h.call_json("POST", "/api/approvals/" + run + ":c1", R"({"decision":"allow"})");
  ASSERT_TRUE(ApiHarness::eventually([&] { return h.run_state(run) == "finished"; }));
  EXPECT_EQ(h.store().get_run(run)->answer, "finished after restart");
}

TEST(ApiRuns, RestartMidRunResumesIt) {
  ApiHarness h;
  std::string s = h.new_session();
  ModelReply slow;
  slow.text = std::string(400, 'y');
  h.model().push(mock_slow_stream(slow, 50));
  SseReader events(h.port(), "/api/sessions/" + s + "/events");
  std::string run = post_message_to(h, s, R"({"content":"slow one"})");
  ASSERT_TRUE(events.wait_for("model_delta"));
  h.model().push(mock_text("answer after restart"));
  h.restart();  // shutdown checkpoints the running run
  ASSERT_TRUE(ApiHarness::eventually([&] { return h.run_state(run) == "finished"; }));
  EXPECT_EQ(h.store().get_run(run)->answer, "answer after restart");
  SseReader replay(h.port(), "/api/runs/" + run + "/events");
  auto suspended = replay.wait_for("run_suspended");
  ASSERT_TRUE(suspended);
  EXPECT_EQ(suspended->data["reason"], "shutdown");
  auto resumed = replay.wait_for("run_resumed");
  ASSERT_TRUE(resumed);
  EXPECT_EQ(resumed->data["reason"], "restart");
  ASSERT_TRUE(replay.wait_for("run_finished"));
}

}  // namespace
}  // namespace keel::testing
