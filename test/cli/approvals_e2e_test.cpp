// End-to-end tests of the approval policy in the keel executable: `keel approvals list|add|rm`
// against a temporary KEEL_HOME database, --approve-mode, --yes against deny patterns, the
// message of a run without a terminal, and remembered answers across runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/store_cli_fixture.hpp"
#include "support/mock_llm_server.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::CliRun;
using testing::lines_of;

ToolCall shell_call(const std::string& command, const std::string& id = "c1") {
  return {id, "shell", json{{"command", command}}.dump()};
}

class ApprovalsCliTest : public testing::StoreCliTest {
 protected:
  ApprovalRule rule(const std::string& workspace, const std::string& tool, const std::string& pattern,
                    ApprovalVerdict verdict) {
    return {workspace, tool, pattern, verdict, clock_};
  }
  testing::TempDir other_;
};

TEST_F(ApprovalsCliTest, ListShowsTheWorkspacesRulesAsATableAndAsJson) {
  ASSERT_TRUE(store_->add_approval_rule(rule(workspace(), "shell", "^git status$", ApprovalVerdict::kAllow)).ok());
  ASSERT_TRUE(store_->add_approval_rule(rule(workspace(), "fs_write", "", ApprovalVerdict::kDeny)).ok());
  ASSERT_TRUE(store_->add_approval_rule(rule(other_.path().string(), "shell", "", ApprovalVerdict::kDeny)).ok());

  CliRun r = keel({"approvals", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_NE(lines[0].find("VERDICT"), std::string::npos);
  EXPECT_NE(lines[1].find("fs_write"), std::string::npos);
  EXPECT_NE(lines[1].find("deny"), std::string::npos);
  EXPECT_NE(lines[1].find("(every call)"), std::string::npos);
  EXPECT_NE(lines[2].find("^git status$"), std::string::npos);
  EXPECT_NE(lines[2].find("allow"), std::string::npos);

  CliRun j = keel({"approvals", "list", "--json", "--workspace", other_.path().string()});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  json rules = json::parse(j.out);
  ASSERT_EQ(rules.size(), 1u) << rules;
  EXPECT_EQ(rules[0]["tool"], "shell");
  EXPECT_EQ(rules[0]["verdict"], "deny");
  EXPECT_EQ(rules[0]["pattern"], "");
  EXPECT_EQ(rules[0]["workspace"], other_.path().string());
  EXPECT_EQ(rules[0]["created_ms"], clock_);

  testing::TempDir empty;
  CliRun none = keel({"approvals", "list", "--json"}, empty.path().string());
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(json::parse(none.out), json::array());
}

TEST_F(ApprovalsCliTest, RmForgetsOneRuleAndAnUnknownRuleExitsOne) {
  ASSERT_TRUE(store_->add_approval_rule(rule(workspace(), "shell", "^make$", ApprovalVerdict::kAllow)).ok());
  ASSERT_TRUE(store_->add_approval_rule(rule(workspace(), "shell", "", ApprovalVerdict::kDeny)).ok());

  CliRun rm = keel({"approvals", "rm", "shell", "--pattern", "^make$"});
  ASSERT_EQ(rm.exit_code, 0) << rm.err;
  EXPECT_NE(rm.out.find("forgot"), std::string::npos) << rm.out;
  auto left = store_->list_approval_rules(workspace());
  ASSERT_TRUE(left.ok());
  ASSERT_EQ(left->size(), 1u);
  EXPECT_EQ((*left)[0].pattern, "");

  CliRun again = keel({"approvals", "rm", "shell", "--pattern", "^make$"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("no remembered approval for shell with pattern '^make$'"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("keel approvals list"), std::string::npos) << again.err;
  CliRun unknown = keel({"approvals", "rm", "fs_delete"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("without a pattern"), std::string::npos) << unknown.err;
  CliRun elsewhere = keel({"approvals", "rm", "shell", "--workspace", other_.path().string()});
  EXPECT_EQ(elsewhere.exit_code, 1);  // the rule belongs to another workspace
  EXPECT_EQ(store_->list_approval_rules(workspace())->size(), 1u);

  CliRun plain = keel({"approvals", "rm", "shell"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_TRUE(store_->list_approval_rules(workspace())->empty());
}

TEST_F(ApprovalsCliTest, AddSavesARuleAndRejectsBadInput) {
  CliRun add = keel({"approvals", "add", "shell", "deny", "--pattern", "rm\\s+-rf"});
  ASSERT_EQ(add.exit_code, 0) << add.err;
  auto rules = store_->list_approval_rules(workspace());
  ASSERT_TRUE(rules.ok());
  ASSERT_EQ(rules->size(), 1u);
  EXPECT_EQ((*rules)[0].tool, "shell");
  EXPECT_EQ((*rules)[0].pattern, "rm\\s+-rf");
  EXPECT_EQ((*rules)[0].verdict, ApprovalVerdict::kDeny);

  CliRun verdict = keel({"approvals", "add", "shell", "sometimes"});
  EXPECT_EQ(verdict.exit_code, 2);
  EXPECT_NE(verdict.err.find("allow or deny"), std::string::npos) << verdict.err;
  CliRun pattern = keel({"approvals", "add", "shell", "allow", "--pattern", "(unclosed"});
  EXPECT_EQ(pattern.exit_code, 2);
  EXPECT_NE(pattern.err.find("'(unclosed'"), std::string::npos) << pattern.err;
  EXPECT_EQ(store_->list_approval_rules(workspace())->size(), 1u);
}

// `keel run` against the mock server, with the database in a temporary KEEL_HOME.
class ApprovalRunE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.running());
    ws_.write("precious.txt", "keep me");
  }
  CliRun run(std::vector<std::string> extra, const std::string& task, std::optional<std::string> tty = std::nullopt) {
    std::vector<std::string> args = {"run", "--base-url", server_.base_url(), "--model", "mock", "--no-stream"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(task);
    return keel(args, std::move(tty));
  }
  CliRun keel(const std::vector<std::string>& args, std::optional<std::string> tty = std::nullopt) {
    testing::CliOptions opts;
    opts.env = {{"KEEL_HOME", home_.path().string()}};
    if (!xdg_.empty()) opts.env["XDG_CONFIG_HOME"] = xdg_;
    opts.cwd = ws_.path().string();
    opts.tty_input = std::move(tty);
    return testing::run_cli(KEEL_BINARY, args, opts);
  }
  // The content of the tool messages the model saw in request `index`.
  std::vector<std::string> tool_results(size_t index) {
    std::vector<std::string> out;
    json body = json::parse(server_.requests().at(index).body);
    for (const auto& m : body["messages"]) {
      if (m["role"] == "tool") out.push_back(m["content"].get<std::string>());
    }
    return out;
  }
  static std::vector<json> events(const std::string& out, const std::string& type) {
    std::vector<json> found;
    for (const auto& line : lines_of(out)) {
      json j = json::parse(line, nullptr, false);
      if (j.is_object() && j.value("type", "") == type) found.push_back(j);
    }
    return found;
  }
  bool precious_exists() const { return std::filesystem::exists(ws_.path() / "precious.txt"); }

  testing::MockLlmServer server_;
  testing::TempDir ws_;
  testing::TempDir home_;
  std::string xdg_;  // XDG_CONFIG_HOME for the run, when set
};

TEST_F(ApprovalRunE2e, ApproveModeDenyRefusesAShellCallEvenWithYes) {
  server_.push(testing::mock_tool_calls({shell_call("rm precious.txt")}));
  server_.push(testing::mock_text("not allowed"));
  CliRun r = run({"--approve-mode", "deny", "--yes", "--json"}, "delete precious.txt");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(precious_exists());
  auto results = tool_results(1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NE(results[0].find("approval mode deny, --approve-mode"), std::string::npos) << results[0];
  auto guards = events(r.out, "guard_fired");
  ASSERT_EQ(guards.size(), 1u) << r.out;
  EXPECT_EQ(guards[0]["kind"], "permission_denied");
  auto decided = events(r.out, "approval_decided");
  ASSERT_EQ(decided.size(), 1u) << r.out;
  EXPECT_EQ(decided[0]["verdict"], "deny");
  EXPECT_TRUE(events(r.out, "approval_requested").empty());  // nobody was asked
  EXPECT_TRUE(events(r.out, "tool_result").empty());
}

TEST_F(ApprovalRunE2e, YesDoesNotOverrideADenyPattern) {
  ws_.write("keel.yaml", "approvals:\n  tools:\n    shell:\n      denyPatterns: ['^rm\\s']\n");
  server_.push(testing::mock_tool_calls({shell_call("rm precious.txt", "c1"), shell_call("echo kept", "c2")}));
  server_.push(testing::mock_text("one refused"));
  CliRun r = run({"--yes"}, "delete precious.txt");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(precious_exists());
  auto results = tool_results(1);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_NE(results[0].find("deny pattern '^rm\\s'"), std::string::npos) << results[0];
  EXPECT_NE(results[0].find("keel.yaml"), std::string::npos) << results[0];
  EXPECT_NE(results[1].find("kept"), std::string::npos) << results[1];  // --yes approved the other call
  EXPECT_NE(r.err.find("permission_denied"), std::string::npos) << r.err;
}

TEST_F(ApprovalRunE2e, AnAllowPatternRunsAShellCommandWithoutATerminal) {
  // Allow patterns loosen the policy: only the user's own config may set them.
  home_.write("xdg/keel/config.yaml", "approvals:\n  tools:\n    shell: {allow_patterns: ['^echo [a-z]+$']}\n");
  xdg_ = (home_.path() / "xdg").string();
  server_.push(testing::mock_tool_calls({shell_call("echo hello", "c1"), shell_call("echo hello; rm precious.txt", "c2")}));
  server_.push(testing::mock_text("done"));
  CliRun r = run({}, "say hello");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(precious_exists());
  auto results = tool_results(1);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_NE(results[0].find("hello"), std::string::npos) << results[0];
  EXPECT_NE(results[1].find("denied"), std::string::npos) << results[1];
}

TEST_F(ApprovalRunE2e, WithoutATerminalTheDenialSaysHowToAllowTheCall) {
  server_.push(testing::mock_tool_calls({shell_call("rm precious.txt")}));
  server_.push(testing::mock_text("could not"));
  CliRun r = run({}, "delete precious.txt");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(precious_exists());
  auto results = tool_results(1);
  ASSERT_EQ(results.size(), 1u);
  for (const char* hint : {"--yes", "--approve-mode auto", "config.yaml", "shell: {mode: auto}"}) {
    EXPECT_NE(results[0].find(hint), std::string::npos) << hint << " in " << results[0];
  }
}

TEST_F(ApprovalRunE2e, ABadApproveModeIsAUsageError) {
  CliRun r = run({"--approve-mode", "sometimes"}, "hello");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--approve-mode must be auto, confirm or deny, got 'sometimes'"), std::string::npos) << r.err;
  EXPECT_EQ(server_.request_count(), 0u);
  CliRun j = run({"--approve-mode", "", "--json"}, "hello");
  EXPECT_EQ(j.exit_code, 2);
  auto failed = events(j.out, "run_failed");
  ASSERT_EQ(failed.size(), 1u) << j.out;
  EXPECT_EQ(failed[0]["exit_code"], 2);
  // chat and resume take the flag too, with the same check.
  for (std::vector<std::string> args : {std::vector<std::string>{"chat", "--approve-mode", "always"},
                                        std::vector<std::string>{"resume", "r_0123456789abcdef", "--approve-mode", "always"}}) {
    CliRun other = keel(args);
    EXPECT_EQ(other.exit_code, 2) << args[0];
    EXPECT_NE(other.err.find("--approve-mode must be auto, confirm or deny"), std::string::npos) << other.err;
  }
}

TEST_F(ApprovalRunE2e, RememberedAnswersDecideLaterRuns) {
  // "never" on the terminal: remembered, shown by keel approvals list, and applied to the next call
  // of the same batch without asking again.
  server_.push(testing::mock_tool_calls({shell_call("rm precious.txt", "c1"), shell_call("rm -f precious.txt", "c2")}));
  server_.push(testing::mock_text("left it"));
  CliRun never = run({}, "delete precious.txt", "v\n");
  EXPECT_EQ(never.exit_code, 0) << never.out;
  size_t first_prompt = never.out.find("ne[v]er");
  ASSERT_NE(first_prompt, std::string::npos) << never.out;
  EXPECT_EQ(never.out.find("ne[v]er", first_prompt + 1), std::string::npos) << "asked twice: " << never.out;
  EXPECT_TRUE(precious_exists());
  auto denied = tool_results(1);
  ASSERT_EQ(denied.size(), 2u);
  EXPECT_NE(denied[1].find("never allows shell"), std::string::npos) << denied[1];
  CliRun listed = keel({"approvals", "list", "--json"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  json rules = json::parse(listed.out);
  ASSERT_EQ(rules.size(), 1u) << rules;
  EXPECT_EQ(rules[0]["tool"], "shell");
  EXPECT_EQ(rules[0]["verdict"], "deny");

  // The next run is refused without a question, even with --yes.
  server_.push(testing::mock_tool_calls({shell_call("echo hi")}));
  server_.push(testing::mock_text("refused"));
  CliRun refused = run({"--yes"}, "say hi");
  EXPECT_EQ(refused.exit_code, 0) << refused.err;
  auto results = tool_results(3);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NE(results[0].find("saved for this workspace"), std::string::npos) << results[0];

  // Forgotten, then "always" allows it in later runs without a terminal.
  ASSERT_EQ(keel({"approvals", "rm", "shell"}).exit_code, 0);
  ASSERT_EQ(keel({"approvals", "add", "shell", "allow"}).exit_code, 0);
  server_.push(testing::mock_tool_calls({shell_call("echo allowed")}));
  server_.push(testing::mock_text("ran"));
  CliRun allowed = run({}, "say allowed");
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  results = tool_results(5);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NE(results[0].find("allowed"), std::string::npos) << results[0];
  EXPECT_EQ(results[0].find("denied"), std::string::npos) << results[0];
}

}  // namespace
}  // namespace keel
