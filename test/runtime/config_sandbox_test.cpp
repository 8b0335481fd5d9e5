// tools.shell.sandbox, network, env and max_processes in the config files and --sandbox: parsed
// strictly, set freely by the user file, only tightened by a workspace keel.yaml.
#include <gtest/gtest.h>

#include <string>

#include "keel/config.hpp"
#include "support/config_dirs.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using ::keel::testing::TempDir;

using ConfigSandboxTest = testing::ConfigDirsTest;

TEST_F(ConfigSandboxTest, DefaultsAreWorkspaceWriteWithoutNetworkAndA256ProcessCap) {
  Result<KeelConfig> cfg = resolve();
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->shell_sandbox, SandboxMode::kWorkspaceWrite);
  EXPECT_FALSE(cfg->shell_network);
  EXPECT_TRUE(cfg->shell_env.empty());
  EXPECT_EQ(cfg->shell_max_processes, 256);
}

TEST_F(ConfigSandboxTest, TheUserFileSetsEverything) {
  user_yaml("tools:\n  shell: {sandbox: off, network: true, env: [GOPATH, HTTPS_PROXY], max_processes: 0}\n");
  Result<KeelConfig> cfg = resolve();
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->shell_sandbox, SandboxMode::kOff);
  EXPECT_TRUE(cfg->shell_network);
  EXPECT_EQ(cfg->shell_env, (std::vector<std::string>{"GOPATH", "HTTPS_PROXY"}));
  EXPECT_EQ(cfg->shell_max_processes, 0);
}

TEST_F(ConfigSandboxTest, AWorkspaceFileMayTighten) {
  workspace_yaml("tools:\n  shell: {sandbox: read-only, network: false, max_processes: 64}\n");
  Result<KeelConfig> cfg = resolve();
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->shell_sandbox, SandboxMode::kReadOnly);
  EXPECT_EQ(cfg->shell_max_processes, 64);
}

TEST_F(ConfigSandboxTest, AWorkspaceFileMayNotLoosen) {
  for (const char* shell : {"{sandbox: off}", "{network: true}", "{env: [OPENAI_API_KEY]}", "{max_processes: 0}",
                            "{max_processes: 1000}"}) {
    workspace_yaml(std::string("tools:\n  shell: ") + shell + "\n");
    Result<KeelConfig> cfg = resolve();
    ASSERT_FALSE(cfg.ok()) << shell;
    EXPECT_EQ(cfg.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(cfg.status().message().find("only honoured in your user config"), std::string::npos)
        << cfg.status().message();
  }
  // Weaker than what the user chose: the user's read-only cannot become workspace-write.
  user_yaml("tools:\n  shell: {sandbox: read-only}\n");
  workspace_yaml("tools:\n  shell: {sandbox: workspace-write}\n");
  Result<KeelConfig> weaker = resolve();
  ASSERT_FALSE(weaker.ok());
  EXPECT_NE(weaker.status().message().find("tools.shell.sandbox: workspace-write"), std::string::npos)
      << weaker.status().message();
}

TEST_F(ConfigSandboxTest, TheFlagWinsOverBothFiles) {
  user_yaml("tools:\n  shell: {sandbox: read-only}\n");
  workspace_yaml("tools:\n  shell: {sandbox: read-only}\n");
  in.sandbox = "off";
  Result<KeelConfig> cfg = resolve();
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->shell_sandbox, SandboxMode::kOff);
  in.sandbox = "closed";
  Result<KeelConfig> bad = resolve();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "--sandbox must be workspace-write, read-only or off, got 'closed'");
}

TEST_F(ConfigSandboxTest, BadValuesNameTheFileAndKey) {
  const std::string path = in.home + "/.config/keel/config.yaml";
  user_yaml("tools:\n  shell: {sandbox: strict}\n");
  EXPECT_EQ(resolve().status().message(),
            path + ": tools.shell.sandbox must be workspace-write, read-only or off, got 'strict'");
  user_yaml("tools:\n  shell: {env: ['A=1']}\n");
  EXPECT_EQ(resolve().status().message(),
            path + ": tools.shell.env must list variable names (no '=' or spaces), got 'A=1'");
  user_yaml("tools:\n  shell: {max_processes: -1}\n");
  EXPECT_EQ(resolve().status().message(),
            path + ": tools.shell.max_processes must be an integer >= 0 and <= 1000000, got '-1'");
  user_yaml("tools:\n  shell: {network: sometimes}\n");
  EXPECT_EQ(resolve().status().message(), path + ": tools.shell.network must be true or false, got 'sometimes'");
}

}  // namespace
}  // namespace keel
