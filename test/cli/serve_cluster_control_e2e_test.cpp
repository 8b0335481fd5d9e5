// Two `keel serve` instances on one PostgreSQL database: what waits on a run (an approval, a
// question) is listed by the instance a client happens to reach, what the client asks of the run
// there (a decision, an answer, an abort) gets to the instance executing it, and the client sees
// the outcome on its own instance's event stream.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "server/raw_http_client.hpp"
#include "support/api_harness.hpp"
#include "support/mock_llm_server.hpp"
#include "support/postgres_server.hpp"
#include "support/serve_process.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;

const std::string kControlAuth = "Authorization: Bearer t0k\r\n";
const std::string kControlJsonAuth = kControlAuth + "Content-Type: application/json\r\n";

// "shell ..." asks for a shell call (which needs an approval) and then answers; "slow" answers after
// 20 s (long enough to be aborted).
testing::MockResponse answer_control_request(const std::string& body) {
  const testing::LatestUserRequest latest = testing::latest_user_request(body);
  if (latest.task == "slow") return testing::with_delay(testing::mock_text("late"), 20000);
  ModelReply reply;
  if (latest.tool_answered) {
    reply.text = "finished:" + latest.task;
  } else if (latest.task == "ask please") {
    reply.tool_calls.push_back({"q1", "ask_user", json{{"question", "Which colour?"}, {"options", {"red", "blue"}}}.dump()});
  } else {
    reply.tool_calls.push_back({"c1", "shell", json{{"command", "echo from-the-other-instance"}}.dump()});
  }
  return testing::mock_completion(reply);
}

class ServeClusterControlE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto schema = testing::PostgresSchema::create();
    ASSERT_TRUE(schema.ok()) << schema.status().to_string();
    schema_.emplace(std::move(schema).value());
    model_.set_responder(answer_control_request);
    std::map<std::string, std::string> env = {
        {"HOME", home_.path().string()}, {"KEEL_HOME", home_.path().string()}, {"KEEL_DATABASE_URL", schema_->url()}};
    for (const char* name : {"node-a", "node-b"}) {
      serves_.push_back(std::make_unique<testing::ServeProcess>(
          std::vector<std::string>{"--port", "0", "-w", ws_.path().string(), "--token", "t0k", "--base-url",
                                   model_.base_url(), "--model", "mock", "--instance-id", name},
          env));
      ASSERT_NE(serves_.back()->port(), 0) << serves_.back()->err();
    }
  }
  uint16_t a() const { return serves_[0]->port(); }
  uint16_t b() const { return serves_[1]->port(); }

  // GET /api/KIND on B: its list once non-empty (a run is listed once it has parked), else empty.
  json listed_on_b(const std::string& kind) {
    for (int i = 0; i < 100; ++i) {
      auto got = testing::raw_http(b(), "GET", "/api/" + kind, kControlAuth);
      if (!got || got->status != 200) return json::array();
      json list = json::parse(got->body, nullptr, false)[kind];
      if (list.is_array() && !list.empty()) return list;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return json::array();
  }

  std::optional<testing::PostgresSchema> schema_;
  testing::TempDir home_, ws_;
  testing::MockLlmServer model_;
  std::vector<std::unique_ptr<testing::ServeProcess>> serves_;
};

TEST_F(ServeClusterControlE2eTest, WhatWaitsOnOneInstanceIsListedDecidedAnsweredAndAbortedOnTheOther) {
  auto created = testing::raw_http(a(), "POST", "/api/sessions", kControlJsonAuth, R"({"title":"two"})");
  ASSERT_TRUE(created && created->status == 201) << (created ? created->body : "no answer");
  const std::string session = json::parse(created->body)["id"];
  testing::SseReader on_b(b(), "/api/sessions/" + session + "/events", kControlAuth);
  ASSERT_EQ(on_b.status(), 200);

  // The run executes on A; its approval request streams on B, and B takes the decision.
  auto posted = testing::raw_http(a(), "POST", "/api/sessions/" + session + "/messages", kControlJsonAuth,
                                  R"({"content":"shell please"})");
  ASSERT_TRUE(posted && posted->status == 202) << (posted ? posted->body : "no answer");
  const std::string run = json::parse(posted->body)["run_id"];
  auto asked = on_b.wait_for("approval_requested", 20000);
  ASSERT_TRUE(asked) << "no approval request reached B";
  const std::string approval = asked->data["approval_id"];
  // B lists it too (it waits on A), with what A asked.
  json approvals = listed_on_b("approvals");
  ASSERT_EQ(approvals.size(), 1u) << approvals.dump();
  EXPECT_EQ(approvals[0]["id"], approval);
  EXPECT_EQ(approvals[0]["run_id"], run);
  EXPECT_EQ(approvals[0]["session_id"], session);
  EXPECT_EQ(approvals[0]["call"]["name"], "shell");
  // B does not hold the request itself; an id of no run is still refused.
  EXPECT_EQ(testing::raw_http(b(), "POST", "/api/approvals/r_0000000000000000:c1", kControlJsonAuth,
                              R"({"decision":"allow"})")
                ->status,
            404);
  auto decided =
      testing::raw_http(b(), "POST", "/api/approvals/" + approval, kControlJsonAuth, R"({"decision":"allow"})");
  ASSERT_TRUE(decided && decided->status == 200) << (decided ? decided->body : "no answer");
  auto finished = on_b.wait_for("run_finished", 20000);
  ASSERT_TRUE(finished) << "the run did not finish after the decision";
  EXPECT_EQ(finished->data["run_id"], run);
  auto state = testing::raw_http(b(), "GET", "/api/runs/" + run, kControlAuth);
  ASSERT_TRUE(state && state->status == 200);
  EXPECT_EQ(json::parse(state->body)["state"], "finished");
  EXPECT_EQ(json::parse(state->body)["answer"], "finished:shell please");

  auto listed = testing::raw_http(b(), "GET", "/api/approvals", kControlAuth);
  ASSERT_TRUE(listed && listed->status == 200);
  EXPECT_EQ(json::parse(listed->body)["approvals"].size(), 0u) << listed->body;

  // A question asked on A is listed and answered on B.
  posted = testing::raw_http(a(), "POST", "/api/sessions/" + session + "/messages", kControlJsonAuth,
                             R"({"content":"ask please"})");
  ASSERT_TRUE(posted && posted->status == 202) << (posted ? posted->body : "no answer");
  const std::string asking = json::parse(posted->body)["run_id"];
  auto question = on_b.wait_for("question", 20000);
  ASSERT_TRUE(question) << "no question reached B";
  const std::string question_id = question->data["question_id"];
  json questions = listed_on_b("questions");
  ASSERT_EQ(questions.size(), 1u) << questions.dump();
  EXPECT_EQ(questions[0]["id"], question_id);
  EXPECT_EQ(questions[0]["run_id"], asking);
  EXPECT_EQ(questions[0]["question"], "Which colour?");
  EXPECT_EQ(questions[0]["options"], json::array({"red", "blue"}));
  auto answered =
      testing::raw_http(b(), "POST", "/api/questions/" + question_id, kControlJsonAuth, R"({"answer":"red"})");
  ASSERT_TRUE(answered && answered->status == 200) << (answered ? answered->body : "no answer");
  ASSERT_TRUE(on_b.wait_for("run_finished", 20000)) << "the run did not finish after the answer";
  state = testing::raw_http(b(), "GET", "/api/runs/" + asking, kControlAuth);
  ASSERT_TRUE(state && state->status == 200);
  EXPECT_EQ(json::parse(state->body)["answer"], "finished:ask please");

  // A slow run on A is aborted through B.
  posted = testing::raw_http(a(), "POST", "/api/sessions/" + session + "/messages", kControlJsonAuth,
                             R"({"content":"slow"})");
  ASSERT_TRUE(posted && posted->status == 202) << (posted ? posted->body : "no answer");
  const std::string slow = json::parse(posted->body)["run_id"];
  ASSERT_TRUE(on_b.wait_for("run_started", 20000));
  auto aborted = testing::raw_http(b(), "POST", "/api/runs/" + slow + "/abort", kControlJsonAuth, "{}");
  ASSERT_TRUE(aborted && aborted->status == 202) << (aborted ? aborted->body : "no answer");
  auto ended = on_b.wait_for("run_failed", 15000);
  ASSERT_TRUE(ended) << "the abort did not reach the run";
  EXPECT_EQ(ended->data["run_id"], slow);
  EXPECT_EQ(ended->data["kind"], "aborted");
  for (auto& serve : serves_) EXPECT_EQ(serve->interrupt(), 0) << serve->err();
}

}  // namespace
}  // namespace keel
