// The autopilot inside `keel serve`: the real executable with an `autopilot:` section and a mock
// model on 127.0.0.1. A file dropped into the watched folder becomes a proposal the operator
// console sees (/api/autopilot, /api/skills) and approves once over HTTP; the route needs the
// token like every other; without an autopilot section the route says it is not enabled.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "server/raw_http_client.hpp"
#include "support/mock_llm_server.hpp"
#include "support/serve_process.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;

class ServeAutopilotTest : public ::testing::Test {
 protected:
  std::map<std::string, std::string> env() {
    return {{"HOME", home_.path().string()}, {"KEEL_HOME", (home_.path() / "data").string()}, {"TZ", "UTC"}};
  }
  testing::TempDir home_;
  testing::TempDir ws_;
  testing::MockLlmServer model_;
  const std::string auth_ = "Authorization: Bearer t0k\r\n";
};

TEST_F(ServeAutopilotTest, AFileBecomesAProposalTheConsoleApprovesOnce) {
  ws_.write(".keel/skills/write-note/skill.json",
            R"({"id": "write-note", "outputSchema": {"type": "object", "required": ["summary", "file"]},
                "approvalMode": "proposal", "action": {"tool": "fs_write", "argumentsPointer": "/file"}})");
  ws_.write(".keel/skills/write-note/SKILL.md", "---\nname: write-note\n---\nPropose a note.\n");
  ws_.write("keel.yaml", "model: mock\nbase_url: " + model_.base_url() +
                             "\nretry: {max_attempts: 1}\n"
                             "autopilot:\n  interval_ms: 100\n  sources:\n    - {name: inbox, files: inbox}\n"
                             "    - {name: feed, http: 'http://127.0.0.1:9/nothing-listens', every_ms: 60000, "
                             "timeout_ms: 1000}\n"
                             "  triggers:\n    - {source: inbox, skills: [write-note]}\n");
  model_.push(testing::mock_text(R"({"summary":"note the report","file":{"path":"notes/r.md","content":"r"}})"));
  std::filesystem::create_directories(ws_.path() / "inbox");
  testing::ServeProcess serve({"--port", "0", "-w", ws_.path().string(), "--token", "t0k"}, env());
  ASSERT_NE(serve.port(), 0) << serve.err();
  EXPECT_EQ(testing::raw_http(serve.port(), "GET", "/api/autopilot")->status, 401);
  ws_.write("inbox/report.txt", "numbers");

  json doc;
  for (int i = 0; i < 200; ++i) {
    auto r = testing::raw_http(serve.port(), "GET", "/api/autopilot", auth_);
    ASSERT_EQ(r->status, 200) << r->body;
    doc = json::parse(r->body);
    if (doc["counts"]["done"] == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(doc["enabled"], true) << doc;
  ASSERT_EQ(doc["counts"]["done"], 1) << doc;
  EXPECT_EQ(doc["observations"][0]["subject"], "inbox/report.txt");
  EXPECT_EQ(doc["status"]["running"], true);
  ASSERT_EQ(doc["status"]["sources"].size(), 2u);
  EXPECT_EQ(doc["status"]["sources"][1]["ok"], false) << "a feed nobody serves is that source's error";
  EXPECT_NE(doc["status"]["sources"][1]["error"].get<std::string>().find("127.0.0.1:9"), std::string::npos);

  json skills = json::parse(testing::raw_http(serve.port(), "GET", "/api/skills", auth_)->body);
  ASSERT_EQ(skills["proposals"].size(), 1u) << skills;
  const std::string id = skills["proposals"][0]["id"];
  const std::string json_auth = auth_ + "Content-Type: application/json\r\n";
  auto approved = testing::raw_http(serve.port(), "POST", "/api/skills/proposals/" + id, json_auth,
                                    R"({"decision":"approve"})");
  ASSERT_EQ(approved->status, 200) << approved->body;
  EXPECT_EQ(json::parse(approved->body)["status"], "executed");
  EXPECT_EQ(testing::read_file(ws_.path() / "notes/r.md"), "r");
  auto again = testing::raw_http(serve.port(), "POST", "/api/skills/proposals/" + id, json_auth,
                                 R"({"decision":"approve"})");
  EXPECT_EQ(again->status, 409) << again->body;
  EXPECT_EQ(serve.interrupt(), 0) << serve.err();
  EXPECT_NE(serve.err().find("autopilot source feed failed"), std::string::npos) << serve.err();
}

TEST_F(ServeAutopilotTest, WithoutASectionTheRouteSaysItIsNotEnabled) {
  testing::ServeProcess serve({"--port", "0", "-w", ws_.path().string(), "--token", "t0k"}, env());
  ASSERT_NE(serve.port(), 0) << serve.err();
  auto r = testing::raw_http(serve.port(), "GET", "/api/autopilot", auth_);
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body), json({{"enabled", false}}));
  EXPECT_EQ(serve.interrupt(), 0);
}

}  // namespace
}  // namespace keel
