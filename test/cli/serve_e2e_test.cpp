// `keel serve` as users start it: the real executable on an ephemeral port with the rules model,
// reached over HTTP (API, events, /v1, /mcp, the web UI's files), stopped with Ctrl-C.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "keel/store/sqlite_store.hpp"
#include "server/raw_http_client.hpp"
#include "support/api_harness.hpp"
#include "support/cli_runner.hpp"
#include "support/serve_process.hpp"
#include "support/temp_dir.hpp"

extern char** environ;

namespace keel {
namespace {

using nlohmann::json;

class ServeE2eTest : public ::testing::Test {
 protected:
  std::map<std::string, std::string> env() {
    return {{"HOME", home_.path().string()}, {"KEEL_HOME", (home_.path() / "data").string()}, {"TZ", "UTC"}};
  }
  testing::TempDir home_;
  testing::TempDir ws_;
};

TEST_F(ServeE2eTest, AnAddressOthersCanReachNeedsAToken) {
  testing::CliOptions o;
  o.cwd = ws_.path().string();
  o.env = env();
  testing::CliRun r = testing::run_cli(KEEL_BINARY, {"serve", "--host", "0.0.0.0", "--port", "0"}, o);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give --token"), std::string::npos) << r.err;
}

TEST_F(ServeE2eTest, ServesTheApiEventsV1McpAndTheUiThenStopsOnCtrlC) {
  ws_.write("notes.txt", "alpha\nbeta\n");
  int64_t proposal = 0;
  std::string public_id;
  {  // A skill's proposal waiting in the workspace, as `keel skills run` would leave it.
    StoreOptions so;
    so.path = home_.path() / "data" / "keel.db";
    std::filesystem::create_directories(so.path.parent_path());
    auto store = open_sqlite_store(so);
    ASSERT_TRUE(store.ok()) << store.status().to_string();
    SkillProposal p;
    p.workspace = std::filesystem::canonical(ws_.path()).string();
    p.skill = "triage";
    p.summary = "label the issue";
    proposal = *(*store)->add_skill_proposal(p);
    public_id = (*store)->get_skill_proposal(proposal)->public_id;
  }
  testing::TempDir web;
  web.write("index.html", "<!doctype html><title>keel</title>");
  web.write("app.js", "export const x = 1;");
  testing::ServeProcess serve({"--port", "0", "-w", ws_.path().string(), "--web-dir", web.path().string(), "--token", "t0k"},
                     env());
  ASSERT_NE(serve.port(), 0) << serve.err();
  const std::string auth = "Authorization: Bearer t0k\r\n";
  const std::string json_auth = auth + "Content-Type: application/json\r\n";
  auto health = testing::raw_http(serve.port(), "GET", "/api/health", auth);
  ASSERT_TRUE(health);
  EXPECT_EQ(json::parse(health->body)["ok"], true);
  EXPECT_EQ(testing::raw_http(serve.port(), "GET", "/api/health")->status, 401);

  auto created = testing::raw_http(serve.port(), "POST", "/api/sessions", json_auth, R"({"title":"e2e"})");
  ASSERT_EQ(created->status, 201) << created->body;
  std::string session = json::parse(created->body)["id"];
  testing::SseReader events(serve.port(), "/api/sessions/" + session + "/events?token=t0k");
  ASSERT_EQ(events.status(), 200);
  auto posted = testing::raw_http(serve.port(), "POST", "/api/sessions/" + session + "/messages", json_auth,
                                  R"({"content":"list the files"})");
  ASSERT_EQ(posted->status, 202) << posted->body;
  auto finished = events.wait_for("run_finished", 20000);
  ASSERT_TRUE(finished);
  EXPECT_NE(finished->data["answer"].get<std::string>().find("notes.txt"), std::string::npos);

  auto skills = testing::raw_http(serve.port(), "GET", "/api/skills", auth);
  ASSERT_EQ(skills->status, 200);
  json listed = json::parse(skills->body);
  ASSERT_EQ(listed["proposals"].size(), 1u) << skills->body;
  EXPECT_EQ(listed["proposals"][0]["summary"], "label the issue");
  EXPECT_EQ(listed["proposals"][0]["id"], public_id);  // never the database's sequential id
  bool extract = false;
  for (const json& e : listed["executable"]) extract = extract || e["id"] == "extract";
  EXPECT_TRUE(extract) << skills->body;
  auto by_number = testing::raw_http(serve.port(), "POST", "/api/skills/proposals/" + std::to_string(proposal), json_auth,
                                     R"({"decision":"reject"})");
  EXPECT_EQ(by_number->status, 404) << by_number->body;
  auto rejected = testing::raw_http(serve.port(), "POST", "/api/skills/proposals/" + public_id, json_auth,
                                    R"({"decision":"reject"})");
  ASSERT_EQ(rejected->status, 200) << rejected->body;
  EXPECT_EQ(json::parse(rejected->body)["status"], "rejected");
  auto again = testing::raw_http(serve.port(), "POST", "/api/skills/proposals/" + public_id, json_auth,
                                 R"({"decision":"approve"})");
  EXPECT_EQ(again->status, 409) << again->body;

  auto models = testing::raw_http(serve.port(), "GET", "/v1/models", auth);
  ASSERT_EQ(models->status, 200);
  EXPECT_EQ(json::parse(models->body)["data"][0]["id"], "keel");

  std::string init = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
                     R"("capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";
  auto mcp = testing::raw_http(serve.port(), "POST", "/mcp",
                               auth + "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n",
                               init);
  ASSERT_TRUE(mcp);
  EXPECT_EQ(mcp->status, 200) << mcp->body;
  EXPECT_NE(mcp->body.find("\"serverInfo\""), std::string::npos) << mcp->body;

  auto page = testing::raw_http(serve.port(), "GET", "/");
  ASSERT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("<title>keel</title>"), std::string::npos);
  EXPECT_NE(page->header("content-security-policy").find("script-src 'self'"), std::string::npos);
  EXPECT_EQ(testing::raw_http(serve.port(), "GET", "/ui/app.js")->header("content-type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(testing::raw_http(serve.port(), "GET", "/ui/../../etc/passwd")->status, 404);
  EXPECT_EQ(testing::raw_http(serve.port(), "GET", "/ui/%2e%2e/%2e%2e/etc/passwd")->status, 404);

  EXPECT_EQ(serve.interrupt(), 0) << serve.err();
  EXPECT_NE(serve.err().find("stopping"), std::string::npos);
}

}  // namespace
}  // namespace keel
