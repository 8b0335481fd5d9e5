// keel serve's session, catalogue and error behaviour over HTTP.
#include <gtest/gtest.h>

#include "support/api_harness.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

TEST(ApiSessions, CreateListGetForkDelete) {
  ApiHarness h;
  json created = h.call_json("POST", "/api/sessions", R"({"title":"first"})", 201);
  std::string id = created["id"];
  EXPECT_EQ(created["title"], "first");
  EXPECT_EQ(created["model"], "mock-model");
  EXPECT_TRUE(created["active_run_id"].is_null());
  json list = h.call_json("GET", "/api/sessions");
  ASSERT_EQ(list["sessions"].size(), 1u);
  EXPECT_EQ(list["sessions"][0]["id"], id);

  h.model().push(mock_text("hello there"));
  h.call_json("POST", "/api/sessions/" + id + "/messages", R"({"content":"say hi"})", 202);
  ASSERT_TRUE(ApiHarness::eventually([&] { return !h.runs().active_run(id).has_value(); }));
  json got = h.call_json("GET", "/api/sessions/" + id);
  ASSERT_EQ(got["messages"].size(), 2u);
  EXPECT_EQ(got["messages"][0]["role"], "user");
  EXPECT_EQ(got["messages"][0]["content"], "say hi");
  EXPECT_EQ(got["messages"][1]["content"], "hello there");
  ASSERT_EQ(got["runs"].size(), 1u);
  EXPECT_EQ(got["runs"][0]["state"], "finished");
  EXPECT_EQ(got["runs"][0]["answer"], "hello there");

  json fork = h.call_json("POST", "/api/sessions/" + id + "/fork", R"({"at":1})", 201);
  EXPECT_NE(fork["id"], id);
  EXPECT_EQ(h.call_json("GET", "/api/sessions/" + fork["id"].get<std::string>())["messages"].size(), 1u);

  EXPECT_EQ(h.call("DELETE", "/api/sessions/" + id).status, 204);
  EXPECT_EQ(h.call("GET", "/api/sessions/" + id).status, 404);
  EXPECT_EQ(h.call("DELETE", "/api/sessions/" + id).status, 404);
}

TEST(ApiSessions, BadInputIsA4xxJsonErrorAndChangesNothing) {
  ApiHarness h;
  std::string id = h.new_session();
  struct Case {
    std::string method, target, body;
    int status;
    std::string code;
  };
  std::vector<Case> cases = {
      {"POST", "/api/sessions/" + id + "/messages", "{not json", 400, "bad_request"},
      {"POST", "/api/sessions/" + id + "/messages", "[1,2]", 400, "bad_request"},
      {"POST", "/api/sessions/" + id + "/messages", R"({"content":5})", 400, "bad_request"},
      {"POST", "/api/sessions/" + id + "/messages", R"({})", 400, "bad_request"},
      {"POST", "/api/sessions/" + id + "/messages", R"({"content":"  "})", 400, "bad_request"},
      {"POST", "/api/sessions/" + id + "/messages", R"({"content":"x","max_rounds":0})", 400, "bad_request"},
      {"POST", "/api/sessions/" + id + "/messages", R"({"content":"x","approval_mode":"maybe"})", 400, "bad_request"},
      {"POST", "/api/sessions/" + id + "/messages", R"({"content":"x","profile":"nope"})", 400, "bad_request"},
      {"POST", "/api/sessions/s_0000000000000000/messages", R"({"content":"x"})", 404, "not_found"},
      {"GET", "/api/sessions/s_0000000000000000", "", 404, "not_found"},
      {"GET", "/api/runs/r_0000000000000000", "", 404, "not_found"},
      {"POST", "/api/runs/r_0000000000000000/abort", "", 404, "not_found"},
      {"POST", "/api/approvals/nope", R"({"decision":"allow"})", 404, "not_found"},
      {"POST", "/api/questions/nope", R"({"answer":"x"})", 404, "not_found"},
      {"POST", "/api/sessions", R"({"title":7})", 400, "bad_request"},
      {"GET", "/api/sessions/" + id + "/nothing", "", 404, "not_found"},
      {"PUT", "/api/sessions", "", 405, "method_not_allowed"},
      {"DELETE", "/api/sessions/" + id + "/messages", "", 405, "method_not_allowed"},
      {"GET", "/api/sessions/" + id + "/events?after=x", "", 400, "bad_request"},
  };
  for (const Case& c : cases) {
    RawHttpResponse r = h.call(c.method, c.target, c.body);
    EXPECT_EQ(r.status, c.status) << c.method << " " << c.target << " " << c.body << ": " << r.body;
    json body = json::parse(r.body, nullptr, false);
    ASSERT_TRUE(body.is_object()) << r.body;
    EXPECT_EQ(body["error"]["code"], c.code) << c.method << " " << c.target;
    EXPECT_FALSE(body["error"]["message"].get<std::string>().empty());
  }
  // Nothing was stored: no run, no message, no other session.
  EXPECT_EQ(h.call_json("GET", "/api/sessions/" + id)["messages"].size(), 0u);
  EXPECT_EQ(h.store().list_runs(id)->size(), 0u);
  EXPECT_EQ(h.call_json("GET", "/api/sessions")["sessions"].size(), 1u);
  EXPECT_EQ(h.model().request_count(), 0u);
}

TEST(ApiSessions, OversizedBodyIs413) {
  ApiHarnessOptions o;
  o.max_body_bytes = 1024;
  ApiHarness h(o);
  std::string id = h.new_session();
  std::string big = R"({"content":")" + std::string(4000, 'x') + R"("})";
  RawHttpResponse r = h.call("POST", "/api/sessions/" + id + "/messages", big);
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(json::parse(r.body)["error"]["code"], "payload_too_large");
  EXPECT_EQ(h.store().list_runs(id)->size(), 0u);
}

TEST(ApiSessions, TokenIsRequiredWhenSet) {
  ApiHarnessOptions o;
  o.token = "s3cret";
  ApiHarness h(o);
  auto none = raw_http(h.port(), "GET", "/api/sessions");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(json::parse(none->body)["error"]["code"], "unauthorized");
  auto wrong = raw_http(h.port(), "GET", "/api/sessions", "Authorization: Bearer s3creT\r\n");
  EXPECT_EQ(wrong->status, 401);
  auto post = raw_http(h.port(), "POST", "/api/sessions", "Authorization: Bearer nope\r\n", R"({"title":"x"})");
  EXPECT_EQ(post->status, 401);
  EXPECT_EQ(h.store().list_sessions({})->size(), 0u);
  EXPECT_EQ(h.call("GET", "/api/sessions").status, 200);
  std::string id = h.new_session();
  // Event streams may carry the token in the query (EventSource cannot send headers); other routes may not.
  SseReader with_query(h.port(), "/api/sessions/" + id + "/events?token=s3cret");
  EXPECT_EQ(with_query.status(), 200);
  SseReader without(h.port(), "/api/sessions/" + id + "/events");
  EXPECT_EQ(without.status(), 401);
  EXPECT_EQ(raw_http(h.port(), "GET", "/api/sessions?token=s3cret")->status, 401);
}

TEST(ApiSessions, CorsIsOffUnlessConfigured) {
  {
    ApiHarness h;
    // A page of another origin is refused outright, without CORS headers its script could read.
    RawHttpResponse r = h.call("GET", "/api/health", "", "Origin: http://evil.example\r\n");
    EXPECT_EQ(r.status, 403);
    EXPECT_EQ(json::parse(r.body)["error"]["code"], "origin_not_allowed");
    EXPECT_EQ(r.header("access-control-allow-origin"), "");
    EXPECT_EQ(h.call("OPTIONS", "/api/sessions", "", "Origin: http://evil.example\r\n").status, 403);
    // The server's own page (same origin) needs no CORS.
    EXPECT_EQ(h.call("GET", "/api/health", "", "Origin: http://127.0.0.1\r\n").status, 200);
  }
  ApiHarnessOptions o;
  o.cors_origins = {"http://ui.example"};
  ApiHarness h(o);
  RawHttpResponse ok = h.call("GET", "/api/health", "", "Origin: http://ui.example\r\n");
  EXPECT_EQ(ok.header("access-control-allow-origin"), "http://ui.example");
  RawHttpResponse other = h.call("GET", "/api/health", "", "Origin: http://evil.example\r\n");
  EXPECT_EQ(other.header("access-control-allow-origin"), "");
  RawHttpResponse pre = h.call("OPTIONS", "/api/sessions", "",
                               "Origin: http://ui.example\r\nAccess-Control-Request-Method: POST\r\n");
  EXPECT_EQ(pre.status, 204);
  EXPECT_NE(pre.header("access-control-allow-methods").find("POST"), std::string::npos);
  EXPECT_EQ(h.call("OPTIONS", "/api/sessions", "", "Origin: http://evil.example\r\n").status, 403);
}

TEST(ApiSessions, CatalogueListsToolsModelsHealthAndSkills) {
  ApiHarnessOptions o;
  api::ProfileInfo a;
  a.name = "fast";
  a.model = "m-fast";
  a.max_rounds = 4;
  api::ProfileInfo b;
  b.name = "deep";
  b.model = "m-deep";
  b.max_rounds = 30;
  o.profiles = {a, b};
  ApiHarness h(o);
  json models = h.call_json("GET", "/api/models");
  EXPECT_EQ(models["default"], "fast");
  ASSERT_EQ(models["profiles"].size(), 2u);
  EXPECT_EQ(models["profiles"][1]["name"], "deep");
  EXPECT_EQ(models["profiles"][1]["max_rounds"], 30);
  json tools = h.call_json("GET", "/api/tools");
  bool shell = false;
  for (const json& t : tools["tools"]) {
    if (t["name"] == "shell") {
      shell = true;
      EXPECT_EQ(t["risk"], "high");
      EXPECT_EQ(t["read_only"], false);
      EXPECT_TRUE(t["parameters"].is_object());
    }
  }
  EXPECT_TRUE(shell);
  json health = h.call_json("GET", "/api/health");
  EXPECT_EQ(health["ok"], true);
  EXPECT_EQ(health["workers"], 2);
  EXPECT_EQ(health["active_runs"], 0);
  EXPECT_EQ(health["store"]["engine"], "sqlite");
  EXPECT_EQ(health["store"]["reachable"], true);
  EXPECT_EQ(health["store"]["schema_version"], 9);
  EXPECT_EQ(health["store"]["connections"], 1);
  json skills = h.call_json("GET", "/api/skills");
  EXPECT_TRUE(skills["knowledge"].is_array());
  EXPECT_TRUE(skills["proposals"].is_array());
  EXPECT_EQ(h.call("POST", "/api/skills/proposals/1", R"({"decision":"approve"})").status, 404);
  // The profile picks the model the run calls.
  std::string id = h.new_session();
  h.model().push(mock_text("deep answer"));
  h.call_json("POST", "/api/sessions/" + id + "/messages", R"({"content":"q","profile":"deep"})", 202);
  ASSERT_TRUE(ApiHarness::eventually([&] { return h.model().request_count() == 1; }));
  EXPECT_EQ(json::parse(h.model().requests()[0].body)["model"], "m-deep");
}

}  // namespace
}  // namespace keel::testing
