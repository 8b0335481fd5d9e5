// A client of keel serve may tighten the operator's approval policy (approval_mode confirm or
// deny) but not loosen it (approval_mode auto), unless the operator's approvals.client_may_loosen
// allows it: on /api/sessions/{id}/messages, with keel serve's own agent factory, and on the
// OpenAI-compatible /v1/chat/completions.
#include <gtest/gtest.h>

#include <filesystem>

#include "openai_endpoint_fixture.hpp"
#include "support/api_harness.hpp"
#include "support/scoped_env.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

ToolCall policy_shell_call(const std::string& command) { return {"c1", "shell", json{{"command", command}}.dump()}; }

// Posts `body` to a new session whose model asks to run `touch ran.txt`, and reads its events
// until the run parks for an approval or ends. Returns the events.
std::vector<SseEvent> policy_run_touch(ApiHarness& h, const std::string& body) {
  std::string s = h.new_session();
  h.model().push(mock_tool_calls({policy_shell_call("touch ran.txt")}));
  h.model().push(mock_text("done"));
  SseReader events(h.port(), "/api/sessions/" + s + "/events");
  h.call_json("POST", "/api/sessions/" + s + "/messages", body, 202);
  for (int i = 0; i < 100; ++i) {
    auto e = events.wait_for("run_suspended", 200);
    if (e) break;
    bool ended = false;
    for (const SseEvent& x : events.events()) ended = ended || x.type == "run_finished" || x.type == "run_failed";
    if (ended) break;
  }
  return events.events();
}

const SseEvent* policy_find_event(const std::vector<SseEvent>& events, const std::string& type) {
  for (const SseEvent& e : events) {
    if (e.type == type) return &e;
  }
  return nullptr;
}

TEST(ApiPolicy, AClientsAutoDoesNotRunAToolTheOperatorWantsConfirmed) {
  for (bool explicit_confirm : {false, true}) {  // shell's risk asks; so does an explicit mode
    ApiHarnessOptions o;
    if (explicit_confirm) o.approvals.tools["shell"].mode = ApprovalMode::kConfirm;
    ApiHarness h(o);
    std::vector<SseEvent> events = policy_run_touch(h, R"({"content":"touch it","approval_mode":"auto"})");
    const SseEvent* asked = policy_find_event(events, "approval_requested");
    ASSERT_NE(asked, nullptr) << "shell ran without asking";
    EXPECT_EQ(asked->data["call"]["name"], "shell");
    EXPECT_EQ(policy_find_event(events, "tool_result"), nullptr);
    EXPECT_FALSE(std::filesystem::exists(h.workspace() / "ran.txt"));
    EXPECT_EQ(h.call_json("GET", "/api/approvals")["approvals"].size(), 1u);
  }
}

TEST(ApiPolicy, AClientsConfirmOrDenyTightensTheOperatorsAuto) {
  ApiHarnessOptions o;
  o.approvals.default_mode = ApprovalMode::kAuto;  // the operator lets everything run
  {
    ApiHarness h(o);  // without a requested mode, shell runs
    std::vector<SseEvent> events = policy_run_touch(h, R"({"content":"touch it"})");
    const SseEvent* result = policy_find_event(events, "tool_result");
    ASSERT_NE(result, nullptr);
    EXPECT_EQ(result->data["status"], "ok");
    EXPECT_TRUE(std::filesystem::exists(h.workspace() / "ran.txt"));
  }
  {
    ApiHarness h(o);
    std::vector<SseEvent> events = policy_run_touch(h, R"({"content":"touch it","approval_mode":"confirm"})");
    const SseEvent* asked = policy_find_event(events, "approval_requested");
    ASSERT_NE(asked, nullptr);
    EXPECT_NE(asked->data.dump().find("requested by the run's approval_mode"), std::string::npos) << asked->data;
    EXPECT_FALSE(std::filesystem::exists(h.workspace() / "ran.txt"));
  }
  {
    ApiHarness h(o);
    std::vector<SseEvent> events = policy_run_touch(h, R"({"content":"touch it","approval_mode":"deny"})");
    EXPECT_EQ(policy_find_event(events, "approval_requested"), nullptr);
    EXPECT_EQ(policy_find_event(events, "tool_result"), nullptr);
    const SseEvent* refused = policy_find_event(events, "approval_decided");  // the policy's own verdict
    ASSERT_NE(refused, nullptr);
    EXPECT_EQ(refused->data["verdict"], "deny");
    const std::string why = "shell is not allowed in this run (approval mode deny requested by the run's approval_mode";
    EXPECT_NE(refused->data["reason"].get<std::string>().find(why), std::string::npos) << refused->data;
    ASSERT_EQ(h.model().request_count(), 2u);  // the model is told why
    EXPECT_NE(h.model().requests()[1].body.find(why), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(h.workspace() / "ran.txt"));
  }
}

TEST(ApiPolicy, ClientMayLoosenLetsAClientsAutoRunTheTool) {
  ApiHarnessOptions o;
  o.approvals.tools["shell"].mode = ApprovalMode::kConfirm;
  o.approvals.client_may_loosen = true;
  ApiHarness h(o);
  std::vector<SseEvent> events = policy_run_touch(h, R"({"content":"touch it","approval_mode":"auto"})");
  EXPECT_EQ(policy_find_event(events, "approval_requested"), nullptr);
  const SseEvent* result = policy_find_event(events, "tool_result");
  ASSERT_NE(result, nullptr);
  EXPECT_EQ(result->data["status"], "ok");
  EXPECT_TRUE(std::filesystem::exists(h.workspace() / "ran.txt"));
}

// The same through keel serve's own factory (the assembly layer), as `keel serve` runs it.
TEST(ApiPolicy, ServeAgentFactoryKeepsTheOperatorsConfirmation) {
  TempDir home;
  ScopedEnv home_env("HOME", home.path().string());
  ScopedEnv xdg("XDG_CONFIG_HOME", (home.path() / "config").string());
  ScopedEnv keel_home("KEEL_HOME", (home.path() / "keel").string());
  ScopedEnv model("KEEL_MODEL", std::nullopt);
  ApiHarnessOptions o;
  o.serve_factory = true;
  o.workspace_files = {{"keel.yaml", "approvals:\n  tools:\n    shell: {mode: confirm}\n"}};
  ApiHarness h(o);
  std::vector<SseEvent> events = policy_run_touch(h, R"({"content":"touch it","approval_mode":"auto"})");
  const SseEvent* asked = policy_find_event(events, "approval_requested");
  ASSERT_NE(asked, nullptr) << "shell ran without asking";
  EXPECT_NE(asked->data.dump().find("approvals.tools.shell"), std::string::npos) << asked->data;
  EXPECT_EQ(policy_find_event(events, "tool_result"), nullptr);
  EXPECT_FALSE(std::filesystem::exists(h.workspace() / "ran.txt"));
}

using OpenAiPolicy = OpenAiEndpointFixture;

TEST_F(OpenAiPolicy, AnApprovalModeInTheBodyDoesNotLetShellRun) {
  start();
  mock_.push(mock_tool_calls({policy_shell_call("touch ran.txt")}));
  mock_.push(mock_text("could not run it"));
  json body = ask("touch the file");
  body["approval_mode"] = "auto";
  std::optional<RawHttpResponse> r = post(body);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "ran.txt"));
  json tool = model_tool_message(1);
  ASSERT_TRUE(tool.is_object()) << mock_.request_bodies().size();
  EXPECT_NE(tool["content"].get<std::string>().find("denied"), std::string::npos) << tool;
}

}  // namespace
}  // namespace keel::testing
