// POST /agui when things go wrong: bodies that are not a RunAgentInput (HTTP 400 before any
// stream, nothing run), a model that fails mid-run (RUN_ERROR ends the stream, the session stays),
// the access guard (token, Host, Origin, media type), a second run on a busy thread, and a client
// that aborts its run.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "api/agui_endpoint_fixture.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

class AguiEndpointErrorsTest : public AguiEndpointFixture {
 protected:
  // Expects a JSON error with `status` and `code`, and that no model call was made.
  void expect_refused(const std::optional<RawHttpResponse>& r, int status, const std::string& code) {
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, status) << r->body;
    json body = json::parse(r->body, nullptr, false);
    ASSERT_TRUE(body.is_object()) << r->body;
    EXPECT_EQ(body["error"]["code"], code) << r->body;
    EXPECT_FALSE(body["error"]["message"].get<std::string>().empty());
    EXPECT_EQ(mock_.request_count(), 0u);
  }
};

TEST_F(AguiEndpointErrorsTest, MalformedJsonIs400) {
  start();
  expect_refused(post("{\"threadId\":"), 400, "invalid_json");
}

TEST_F(AguiEndpointErrorsTest, AMissingThreadIdOrRunIdIs400) {
  start();
  json input = agui_input("t", json::array({agui_user("u1", "hi")}));
  input.erase("threadId");
  expect_refused(post(input), 400, "missing_field");
  input = agui_input("t", json::array({agui_user("u1", "hi")}));
  input.erase("runId");
  expect_refused(post(input), 400, "missing_field");
  input = agui_input("t", json::array({agui_user("u1", "hi")}));
  input["runId"] = 7;
  expect_refused(post(input), 400, "invalid_type");
}

TEST_F(AguiEndpointErrorsTest, MessagesThatAreNotAnArrayAre400) {
  start();
  json input = agui_input("t", json::array());
  input["messages"] = "hi";
  expect_refused(post(input), 400, "invalid_type");
  input.erase("messages");
  expect_refused(post(input), 400, "missing_field");
}

TEST_F(AguiEndpointErrorsTest, NothingToRunIs400) {
  start();
  expect_refused(post(agui_input("t", json::array())), 400, "nothing_to_run");
  expect_refused(post(agui_input("t", json::array({agui_user("u1", "hi"), agui_assistant("m1", "hello")}))), 400,
                 "nothing_to_run");
}

TEST_F(AguiEndpointErrorsTest, ContentOtherThanTextIs400) {
  start();
  json image = {
      {"id", "u1"},
      {"role", "user"},
      {"content", json::array({{{"type", "image"}, {"source", {{"type", "url"}, {"value", "http://x/y.png"}}}}})}};
  expect_refused(post(agui_input("t", json::array({image}))), 400, "unsupported_content");
  json odd = {{"id", "u1"}, {"role", "robot"}, {"content", "hi"}};
  expect_refused(post(agui_input("t", json::array({odd}))), 400, "invalid_value");
}

TEST_F(AguiEndpointErrorsTest, AnUnknownProfileOrABadToolIs400) {
  start();
  json input = agui_input("t", json::array({agui_user("u1", "hi")}));
  input["forwardedProps"] = {{"profile", "nope"}};
  expect_refused(post(input), 400, "unknown_profile");
  input["forwardedProps"] = json::object();
  input["tools"] = json::array({{{"name", "fs_list"}, {"description", "clashes with keel's own"}}});
  expect_refused(post(input), 400, "invalid_tools");
  input["tools"] = json::array({{{"name", "x"}, {"description", "d"}, {"parameters", "not a schema"}}});
  expect_refused(post(input), 400, "invalid_type");

  mock_.push(mock_stream(reply("fast answer")));
  input["tools"] = json::array();
  input["forwardedProps"] = {{"profile", "fast"}};
  auto r = post(input);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(agui_events(r->body).back()["type"], "RUN_FINISHED");
}

TEST_F(AguiEndpointErrorsTest, AStoredThreadWithNothingNewIs400) {
  start();
  mock_.push(mock_stream(reply("hello")));
  auto first = post(agui_input("t-stored", json::array({agui_user("u1", "hi")})));
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  auto again = post(agui_input("t-stored", json::array({agui_user("u1", "hi"), agui_assistant("m1", "hello")})));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 400) << again->body;
  EXPECT_EQ(json::parse(again->body)["error"]["code"], "nothing_to_run");
  EXPECT_EQ(mock_.request_count(), 1u);
}

TEST_F(AguiEndpointErrorsTest, AFailingModelEndsTheStreamWithRunErrorAndTheSessionStays) {
  start();
  mock_.push(mock_error(500, "backend exploded"));
  auto r = post(agui_input("t-fail", json::array({agui_user("u1", "hi")})));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const std::vector<json> events = agui_events(r->body);
  ASSERT_GE(events.size(), 3u) << r->body;
  EXPECT_EQ(events.front()["type"], "RUN_STARTED");
  const json& error = events.back();
  EXPECT_EQ(error["type"], "RUN_ERROR");
  EXPECT_EQ(error["code"], "backend");
  EXPECT_NE(error["message"].get<std::string>().find("backend exploded"), std::string::npos) << error;
  EXPECT_TRUE(agui_of(events, "RUN_FINISHED").empty());
  const std::string session = agui_session(events);
  EXPECT_EQ(stored(session), std::vector<std::string>{"user: hi"});
  auto run = store_->latest_run(session);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->state, RunState::kFailed);

  mock_.push(mock_stream(reply("second try")));  // the thread goes on
  auto next = post(agui_input("t-fail", json::array({agui_user("u1", "hi"), agui_user("u2", "again")})));
  ASSERT_TRUE(next);
  ASSERT_EQ(next->status, 200) << next->body;
  EXPECT_EQ(stored(session), (std::vector<std::string>{"user: hi", "user: again", "assistant: second try"}));
}

TEST_F(AguiEndpointErrorsTest, TheAccessGuardChecksTokenHostOriginAndMediaType) {
  api::ApiAccess access;
  access.token = "secret-token";
  access.cors_origins = {"http://app.example"};
  start(access);
  const std::string dumped = agui_input("t", json::array({agui_user("u1", "hi")})).dump();
  const std::string_view body = dumped;
  auto r = post(body);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401) << r->body;
  r = post(body, "Authorization: Bearer wrong\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401) << r->body;
  r = post(body, "Authorization: Bearer secret-token\r\nOrigin: http://evil.example\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403) << r->body;
  std::string request = "POST /agui HTTP/1.1\r\nHost: evil.example\r\nAuthorization: Bearer secret-token\r\n";
  request += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  request += "Connection: close\r\n\r\n" + dumped;
  r = raw_http_exact(http_->port(), request);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403) << r->body;
  r = raw_http(http_->port(), "POST", "/agui", "Authorization: Bearer secret-token\r\nContent-Type: text/plain\r\n",
               body);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 415) << r->body;
  EXPECT_EQ(mock_.request_count(), 0u);

  r = raw_http(http_->port(), "OPTIONS", "/agui",
               "Origin: http://app.example\r\nAccess-Control-Request-Method: POST\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 204);
  EXPECT_EQ(r->header("access-control-allow-origin"), "http://app.example");

  mock_.push(mock_stream(reply("hi")));
  r = post(body, "Authorization: Bearer secret-token\r\nOrigin: http://app.example\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->header("access-control-allow-origin"), "http://app.example");
}

TEST_F(AguiEndpointErrorsTest, ABusyThreadIs409AndAnAbortedRunLeavesItsSessionToTheNext) {
  start();
  mock_.push(mock_slow_stream(reply(std::string(400, 'x')), 100));  // about 10 s
  const std::string body = agui_input("t-busy", json::array({agui_user("u1", "Write a lot")})).dump();
  std::string session;
  {
    std::unique_ptr<RawHttpClient> client = open_stream(body);
    ASSERT_TRUE(client);
    std::string seen;
    while (seen.find("STATE_SNAPSHOT") == std::string::npos) {
      auto chunk = client->read_chunk(10000);
      ASSERT_TRUE(chunk && !chunk->empty());
      seen += *chunk;
    }
    session = agui_session(agui_events(seen.substr(0, seen.rfind("\n\n") + 2)));
    ASSERT_FALSE(session.empty()) << seen;

    auto busy = post(agui_input("t-busy", json::array({agui_user("u1", "Write a lot"), agui_user("u2", "hurry")})));
    ASSERT_TRUE(busy);
    EXPECT_EQ(busy->status, 409) << busy->body;
    EXPECT_EQ(json::parse(busy->body)["error"]["code"], "thread_busy");
    for (int i = 0; i < 500 && mock_.request_count() == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(mock_.request_count(), 1u) << "the run is streaming from the model";
  }  // the client aborts its run

  mock_.push(mock_stream(reply("Done now.")));
  const auto started = std::chrono::steady_clock::now();
  auto next = post(agui_input("t-busy", json::array({agui_user("u1", "Write a lot"), agui_user("u2", "Shorter")})));
  ASSERT_TRUE(next);
  ASSERT_EQ(next->status, 200) << next->body;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(8))
      << "the aborted run should stop well before the model's 10 s stream ends";
  EXPECT_EQ(agui_session(agui_events(next->body)), session);
  EXPECT_EQ(stored(session), (std::vector<std::string>{"user: Write a lot", "user: Shorter", "assistant: Done now."}));
  auto runs = store_->list_runs(session);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].state, RunState::kAborted);
  EXPECT_EQ((*runs)[1].state, RunState::kFinished);
}

TEST_F(AguiEndpointErrorsTest, MountingAfterTheServerStartedIsRefused) {
  start();
  Status late = api::mount_agui_endpoint(*http_, *factory_, *workers_, *store_, {});
  EXPECT_EQ(late.code(), ErrorCode::kFailedPrecondition);
}

}  // namespace
}  // namespace keel::testing
