// Command hooks in the keel executable: `keel run` reads them from the user's and the workspace's
// settings files, a PreToolUse hook exiting 2 keeps a shell call from running and the model reads
// its stderr, workspace hooks wait for `keel hooks trust`, and a broken settings file stops the run
// with its name.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::CliRun;

constexpr const char* kBlockShell =
    R"({"hooks": {"PreToolUse": [{"matcher": "shell", "hooks": [{"type": "command", "command": "echo 'no shell today' >&2; exit 2"}]}]}})";

class HooksE2e : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.running()); }
  CliRun keel(const std::vector<std::string>& args) {
    testing::CliOptions opts;
    opts.env = {{"KEEL_HOME", home_.path().string()}, {"XDG_CONFIG_HOME", (home_.path() / "config").string()}};
    opts.cwd = ws_.path().string();
    return testing::run_cli(KEEL_BINARY, args, opts);
  }
  // `keel run` of a task whose model calls shell `touch made.txt` once, then answers.
  CliRun run_touch(const std::string& sandbox = "off") {
    server_.push(testing::mock_tool_calls({{"c1", "shell", json{{"command", "touch made.txt"}}.dump()}}));
    server_.push(testing::mock_text("done"));
    return keel({"run", "--base-url", server_.base_url(), "--model", "mock", "--no-stream", "--yes", "--sandbox",
                 sandbox, "make a file"});
  }
  bool made() const { return std::filesystem::exists(ws_.path() / "made.txt"); }
  // The tool messages of the model's last request.
  std::string last_tool_results() {
    json body = json::parse(server_.requests().back().body);
    std::string out;
    for (const auto& m : body["messages"]) {
      if (m["role"] == "tool") out += m["content"].get<std::string>();
    }
    return out;
  }

  testing::MockLlmServer server_;
  testing::TempDir ws_, home_;
};

TEST_F(HooksE2e, AUserPreToolUseHookExitingTwoBlocksTheShellCall) {
  home_.write("config/keel/settings.json", kBlockShell);
  CliRun r = run_touch();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(made());
  EXPECT_NE(last_tool_results().find("no shell today"), std::string::npos) << last_tool_results();
}

TEST_F(HooksE2e, WorkspaceHooksRunOnlyOnceTrusted) {
  ws_.write(".claude/settings.json", kBlockShell);
  CliRun untrusted = run_touch();
  ASSERT_EQ(untrusted.exit_code, 0) << untrusted.err;
  EXPECT_TRUE(made());  // the hook did not run
  EXPECT_NE(untrusted.err.find("not trusted"), std::string::npos) << untrusted.err;
  std::filesystem::remove(ws_.path() / "made.txt");

  CliRun listed = keel({"hooks", "list"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("untrusted"), std::string::npos) << listed.out;

  CliRun trust = keel({"hooks", "trust"});
  ASSERT_EQ(trust.exit_code, 0) << trust.err;
  EXPECT_NE(trust.out.find("trusted the PreToolUse hook"), std::string::npos) << trust.out;

  CliRun trusted = run_touch();
  ASSERT_EQ(trusted.exit_code, 0) << trusted.err;
  EXPECT_FALSE(made());
  EXPECT_EQ(trusted.err.find("not trusted"), std::string::npos) << trusted.err;
  EXPECT_NE(last_tool_results().find("no shell today"), std::string::npos) << last_tool_results();
}

TEST_F(HooksE2e, HooksRunInsideTheShellSandboxWhenItIsOn) {
  const std::filesystem::path outside = home_.path() / "outside.txt";
  json settings = {{"hooks",
                    {{"SessionStart",
                      {{{"hooks",
                         {{{"type", "command"},
                           {"command", "echo in > \"$KEEL_PROJECT_DIR/inside.txt\"; echo out > '" + outside.string() +
                                           "' 2>/dev/null; true"}}}}}}}}}};
  home_.write("config/keel/settings.json", settings.dump());
  CliRun r = run_touch("workspace-write");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(ws_.path() / "inside.txt")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(outside));  // keel's home is hidden from the hook
}

TEST_F(HooksE2e, ABrokenSettingsFileStopsTheRunAndNamesTheFile) {
  ws_.write(".keel/settings.json", "{\"hooks\": [");
  CliRun r = run_touch();
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(made());
  EXPECT_NE(r.err.find(".keel/settings.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not valid JSON"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace keel
