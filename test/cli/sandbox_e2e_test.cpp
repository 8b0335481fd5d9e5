// End to end: the keel executable runs the model's shell calls in the sandbox by default, and
// --sandbox (on every agent command) chooses the mode for one run.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/cli_runner.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::CliRun;

// A folder outside /tmp (which the sandbox replaces anyway), so only the read-only system keeps
// a command out of it.
class OutsideDir {
 public:
  OutsideDir() {
    char name[] = "/var/tmp/keel-sandbox-e2e-XXXXXX";
    if (::mkdtemp(name) != nullptr) path_ = name;
  }
  ~OutsideDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

class SandboxE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.running());
    ASSERT_FALSE(outside_.path().empty());
  }
  CliRun run(std::vector<std::string> extra) {
    const std::string command = "echo in > inside.txt; echo out > " + (outside_.path() / "escaped.txt").string();
    server_.push(testing::mock_tool_calls({{"c1", "shell", json{{"command", command}}.dump()}}));
    server_.push(testing::mock_text("done"));
    std::vector<std::string> args = {"run",         "--base-url", server_.base_url(), "--model", "mock",
                                     "--no-stream", "--yes",      "--ephemeral"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("write the files");
    testing::CliOptions opts;
    opts.env = {{"KEEL_HOME", home_.path().string()}};
    opts.cwd = ws_.path().string();
    return testing::run_cli(KEEL_BINARY, args, opts);
  }
  CliRun keel(const std::vector<std::string>& args) {
    testing::CliOptions opts;
    opts.env = {{"KEEL_HOME", home_.path().string()}};
    opts.cwd = ws_.path().string();
    return testing::run_cli(KEEL_BINARY, args, opts);
  }

  testing::MockLlmServer server_;
  testing::TempDir ws_;
  testing::TempDir home_;
  OutsideDir outside_;
};

TEST_F(SandboxE2e, ShellCallsAreConfinedToTheWorkspaceByDefault) {
  CliRun r = run({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(ws_.path() / "inside.txt"));
  EXPECT_FALSE(std::filesystem::exists(outside_.path() / "escaped.txt"));
}

TEST_F(SandboxE2e, SandboxOffRunsUnconfined) {
  CliRun r = run({"--sandbox", "off"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(ws_.path() / "inside.txt"));
  EXPECT_TRUE(std::filesystem::exists(outside_.path() / "escaped.txt"));
}

TEST_F(SandboxE2e, ReadOnlyKeepsTheWorkspaceUnchanged) {
  CliRun r = run({"--sandbox", "read-only"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(ws_.path() / "inside.txt"));
  EXPECT_FALSE(std::filesystem::exists(outside_.path() / "escaped.txt"));
}

TEST_F(SandboxE2e, ABadModeIsAUsageErrorOnEveryAgentCommand) {
  for (std::vector<std::string> args : {std::vector<std::string>{"run", "--sandbox", "none", "hello"},
                                        std::vector<std::string>{"chat", "--sandbox", "none"},
                                        std::vector<std::string>{"resume", "r_0123456789abcdef", "--sandbox", "none"},
                                        std::vector<std::string>{"serve", "--port", "0", "--sandbox", "none"},
                                        std::vector<std::string>{"mcp", "serve", "--sandbox", "none"}}) {
    CliRun r = keel(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("--sandbox must be workspace-write, read-only or off, got 'none'"), std::string::npos)
        << args[0] << ": " << r.err;
  }
  EXPECT_EQ(server_.request_count(), 0u);
}

}  // namespace
}  // namespace keel
