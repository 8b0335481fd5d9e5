// keel serve shows only the sessions of its own workspace: another workspace's session in the same
// database is 404 (like a missing one) on every route, with its runs, events, approvals and
// questions, and a restart does not take up its checkpointed runs.
#include <gtest/gtest.h>

#include "support/api_harness.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

// A session of another workspace with a message, a checkpointed run and a stored event.
struct ForeignSession {
  std::string session;
  std::string run;
};

ForeignSession add_foreign_session_to(Store& store) {
  SessionInfo info;
  info.title = "someone else's";
  info.workspace = "/elsewhere";
  info.model = "m";
  ForeignSession f;
  f.session = *store.create_session(info);
  RunInfo run;
  run.session_id = f.session;
  run.task = "their task";
  f.run = *store.accept_server_run(run, Message::user("their task"), "{}", ServerLease{});
  ServerEvent e;
  e.session_id = f.session;
  e.seq = 1;
  e.run_id = f.run;
  e.type = "user_message";
  e.data = R"({"v":1,"type":"user_message","content":"their task"})";
  EXPECT_TRUE(store.append_server_events(std::span<const ServerEvent>(&e, 1)).ok());
  return f;
}

std::string workspace_error_message(const RawHttpResponse& r) {
  json body = json::parse(r.body, nullptr, false);
  return body.is_object() ? body["error"].value("message", "") : "";
}

TEST(ApiWorkspace, AnotherWorkspacesSessionIsNotFoundOnEveryRoute) {
  ApiHarness h;
  std::string mine = h.new_session();
  ForeignSession other = add_foreign_session_to(h.store());
  const std::string missing = "s_0123456789abcdef0123456789abcdef";

  json list = h.call_json("GET", "/api/sessions");
  ASSERT_EQ(list["sessions"].size(), 1u) << list;
  EXPECT_EQ(list["sessions"][0]["id"], mine);

  struct Case {
    std::string method, path, body;
  };
  const std::vector<Case> cases = {
      {"GET", "/api/sessions/ID", ""},
      {"DELETE", "/api/sessions/ID", ""},
      {"POST", "/api/sessions/ID/messages", R"({"content":"continue it"})"},
      {"POST", "/api/sessions/ID/fork", R"({})"},
  };
  for (const Case& c : cases) {
    auto with = [&](const std::string& id) {
      std::string path = c.path;
      path.replace(path.find("ID"), 2, id);
      return h.call(c.method, path, c.body);
    };
    RawHttpResponse theirs = with(other.session);
    EXPECT_EQ(theirs.status, 404) << c.method << " " << c.path << ": " << theirs.body;
    // The same answer as for a session that does not exist: nothing tells it exists.
    RawHttpResponse none = with(missing);
    EXPECT_EQ(none.status, 404);
    std::string expected = workspace_error_message(none);
    expected.replace(expected.find(missing), missing.size(), other.session);
    EXPECT_EQ(workspace_error_message(theirs), expected) << c.method << " " << c.path;
  }
  SseReader events(h.port(), "/api/sessions/" + other.session + "/events");
  EXPECT_EQ(events.status(), 404);

  // Its run: not readable, not streamable, not abortable or steerable.
  EXPECT_EQ(h.call("GET", "/api/runs/" + other.run).status, 404);
  EXPECT_EQ(h.call("POST", "/api/runs/" + other.run + "/abort").status, 404);
  EXPECT_EQ(h.call("POST", "/api/runs/" + other.run + "/steer", R"({"content":"stop"})").status, 404);
  SseReader run_events(h.port(), "/api/runs/" + other.run + "/events");
  EXPECT_EQ(run_events.status(), 404);

  // Nothing changed: still there, no new run or session, the model never called.
  ASSERT_TRUE(h.store().get_session(other.session).ok());
  EXPECT_EQ(h.store().list_runs(other.session)->size(), 1u);
  EXPECT_EQ(h.store().load_messages(other.session)->size(), 1u);
  EXPECT_EQ(h.store().list_sessions({})->size(), 2u);
  EXPECT_EQ(h.model().request_count(), 0u);
  // Our own session still works.
  EXPECT_EQ(h.call("GET", "/api/sessions/" + mine).status, 200);
}

TEST(ApiWorkspace, ApprovalsAndQuestionsOfAnotherWorkspaceAreNotFound) {
  ApiHarness h;
  ForeignSession other = add_foreign_session_to(h.store());
  ApprovalRequest request;
  request.call = {"c1", "shell", R"({"command":"rm -rf /"})"};
  request.reason = "shell is a high-risk tool";
  ASSERT_FALSE(h.pending().take_decisions(other.run, other.session, {request}));
  UserQuestion question;
  question.question = "proceed?";
  question.run_id = other.run;
  question.session_id = other.session;
  question.call_id = "q1";
  ASSERT_FALSE(h.pending().take_answer(question));
  const std::string approval = api::PendingInput::item_id(other.run, "c1");
  const std::string asked = api::PendingInput::item_id(other.run, "q1");

  EXPECT_EQ(h.call_json("GET", "/api/approvals")["approvals"].size(), 0u);
  EXPECT_EQ(h.call_json("GET", "/api/questions")["questions"].size(), 0u);
  RawHttpResponse decided = h.call("POST", "/api/approvals/" + approval, R"({"decision":"allow"})");
  EXPECT_EQ(decided.status, 404) << decided.body;
  EXPECT_EQ(workspace_error_message(decided), "no approval '" + approval + "' is pending");
  RawHttpResponse answered = h.call("POST", "/api/questions/" + asked, R"({"answer":"yes"})");
  EXPECT_EQ(answered.status, 404) << answered.body;
  // Still undecided: the other workspace's server can decide them.
  EXPECT_EQ(h.pending().approvals().size(), 1u);
  EXPECT_EQ(h.pending().questions().size(), 1u);
  EXPECT_TRUE(h.pending().waiting(other.run));
}

TEST(ApiWorkspace, AMadeUpApprovalIdIsNotFound) {
  ApiHarness h;
  for (const std::string& id : {std::string("r_0123456789abcdef0123456789abcdef:c1"), std::string("r_1:call_1"),
                                std::string("nope")}) {
    RawHttpResponse r = h.call("POST", "/api/approvals/" + id, R"({"decision":"allow"})");
    EXPECT_EQ(r.status, 404) << id << ": " << r.body;
    EXPECT_EQ(json::parse(r.body)["error"]["code"], "not_found");
    EXPECT_EQ(h.call("POST", "/api/questions/" + id, R"({"answer":"x"})").status, 404) << id;
  }
}

TEST(ApiWorkspace, ARestartLeavesAnotherWorkspacesRunsAlone) {
  ApiHarness h;
  ForeignSession other = add_foreign_session_to(h.store());
  h.restart();
  EXPECT_FALSE(h.runs().active_run(other.session).has_value());
  EXPECT_EQ(h.run_state(other.run), "running");  // untouched, and its checkpoint kept for its own server
  auto checkpoints = h.store().list_server_checkpoints();
  ASSERT_TRUE(checkpoints.ok());
  ASSERT_EQ(checkpoints->size(), 1u);
  EXPECT_EQ((*checkpoints)[0].run_id, other.run);
  EXPECT_EQ(h.model().request_count(), 0u);
}

TEST(ApiWorkspace, IdsCarry128RandomBits) {
  ApiHarness h;
  std::string s = h.new_session();
  EXPECT_EQ(s.size(), 34u) << s;
  h.model().push(mock_text("hi"));
  std::string run = h.call_json("POST", "/api/sessions/" + s + "/messages", R"({"content":"hello"})", 202)["run_id"];
  EXPECT_EQ(run.size(), 34u) << run;
  EXPECT_EQ(run.find_first_not_of("0123456789abcdef", 2), std::string::npos) << run;
}

}  // namespace
}  // namespace keel::testing
