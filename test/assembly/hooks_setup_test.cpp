// Command hooks as the assembly builds them: user settings are trusted, workspace settings run only
// once trusted (and say so until then), and a settings file that is not usable stops the agent
// with an error naming the file.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "assembly/hooks_setup.hpp"
#include "keel/agent.hpp"
#include "keel/assembly.hpp"
#include "keel/store/sqlite_store.hpp"
#include "support/fake_llm.hpp"
#include "support/scoped_env.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

constexpr const char* kRecordStart =
    R"({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "cat > \"$KEEL_PROJECT_DIR/started.json\""}]}]}})";

class HooksSetupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions so;
    so.path = home_.path() / "keel.db";
    auto s = open_sqlite_store(so);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    store_ = std::move(s).value();
    config_.shell_sandbox = SandboxMode::kOff;
    env_ = {{"HOME", home_.path().string()}};
  }
  std::string ws() const { return ws_.path().string(); }

  Result<std::shared_ptr<detail::CommandHooks>> make() {
    return assembly::make_command_hooks(config_, ws(), store_.get(), env_,
                                        [this](const std::string& line) { notices_.push_back(line); });
  }
  // Runs one answer-only task with `hooks`; true when the SessionStart hook wrote its file.
  bool session_start_ran(std::shared_ptr<Hooks> hooks) {
    testing::FakeLlm llm;
    llm.push_text("ok");
    ToolRegistry tools;
    AgentOptions o;
    o.workspace = ws();
    o.load_agents_md = false;
    o.stream = false;
    Agent agent(llm, tools, o);
    if (hooks) agent.add_hooks(std::move(hooks));
    EXPECT_TRUE(agent.run("hi").ok());
    return std::filesystem::exists(ws_.path() / "started.json");
  }

  testing::TempDir home_, ws_;
  std::unique_ptr<Store> store_;
  KeelConfig config_;
  std::map<std::string, std::string> env_;
  std::vector<std::string> notices_;
};

TEST_F(HooksSetupTest, UntrustedWorkspaceHooksDoNotRunUntilTrusted) {
  ws_.write(".claude/settings.json", kRecordStart);
  Result<std::shared_ptr<detail::CommandHooks>> untrusted = make();
  ASSERT_TRUE(untrusted.ok()) << untrusted.status().to_string();
  EXPECT_EQ(*untrusted, nullptr);
  ASSERT_EQ(notices_.size(), 1u);
  EXPECT_NE(notices_[0].find("not trusted"), std::string::npos) << notices_[0];
  EXPECT_NE(notices_[0].find(".claude/settings.json"), std::string::npos) << notices_[0];
  EXPECT_NE(notices_[0].find("keel hooks trust"), std::string::npos) << notices_[0];
  EXPECT_FALSE(session_start_ran(*untrusted));

  // Trusting it as `keel hooks trust` does.
  Result<detail::HookSettings> settings = detail::load_hook_settings(ws(), env_);
  ASSERT_TRUE(settings.ok());
  ASSERT_EQ(settings->commands.size(), 1u);
  ApprovalRule rule;
  rule.workspace = ws();
  rule.tool = assembly::hook_trust_tool(settings->commands[0]);
  rule.pattern = assembly::hook_trust_fingerprint(settings->commands[0]);
  rule.verdict = ApprovalVerdict::kAllow;
  ASSERT_TRUE(store_->add_approval_rule(rule).ok());
  notices_.clear();
  Result<std::shared_ptr<detail::CommandHooks>> trusted = make();
  ASSERT_TRUE(trusted.ok()) << trusted.status().to_string();
  ASSERT_NE(*trusted, nullptr);
  EXPECT_TRUE(notices_.empty());
  EXPECT_TRUE(session_start_ran(*trusted));
}

TEST_F(HooksSetupTest, AChangedWorkspaceHookNeedsTrustAgain) {
  ws_.write(".keel/settings.json", kRecordStart);
  ApprovalRule rule{ws(), "hook:SessionStart", "some other command", ApprovalVerdict::kAllow, 0};
  ASSERT_TRUE(store_->add_approval_rule(rule).ok());
  Result<std::shared_ptr<detail::CommandHooks>> hooks = make();
  ASSERT_TRUE(hooks.ok());
  EXPECT_EQ(*hooks, nullptr);
  EXPECT_EQ(notices_.size(), 1u);
}

TEST_F(HooksSetupTest, UserSettingsHooksAreTrusted) {
  home_.write(".claude/settings.json", kRecordStart);
  Result<std::shared_ptr<detail::CommandHooks>> hooks = make();
  ASSERT_TRUE(hooks.ok()) << hooks.status().to_string();
  ASSERT_NE(*hooks, nullptr);
  EXPECT_TRUE(notices_.empty());
  EXPECT_TRUE(session_start_ran(*hooks));
  std::string sent = testing::read_file(ws_.path() / "started.json");
  nlohmann::json j = nlohmann::json::parse(sent);
  EXPECT_EQ(j["hook_event_name"], "SessionStart");
  EXPECT_EQ(j["source"], "startup");
}

TEST_F(HooksSetupTest, KeelsOwnUserSettingsFileIsRead) {
  home_.write(".config/keel/settings.json", kRecordStart);
  Result<std::shared_ptr<detail::CommandHooks>> hooks = make();
  ASSERT_TRUE(hooks.ok()) << hooks.status().to_string();
  EXPECT_TRUE(session_start_ran(*hooks));
}

TEST_F(HooksSetupTest, MalformedSettingsGiveAnErrorNamingTheFile) {
  ws_.write(".claude/settings.json", "{\"hooks\": {\"PreToolUse\": [");
  Result<std::shared_ptr<detail::CommandHooks>> hooks = make();
  ASSERT_FALSE(hooks.ok());
  EXPECT_NE(hooks.status().message().find((ws_.path() / ".claude/settings.json").string()), std::string::npos)
      << hooks.status().message();
  EXPECT_NE(hooks.status().message().find("not valid JSON"), std::string::npos) << hooks.status().message();
}

TEST_F(HooksSetupTest, AssembledAgentRefusesToStartWithMalformedHookSettings) {
  ws_.write(".keel/settings.json", "not json at all");
  testing::ScopedEnv home("HOME", home_.path().string());
  testing::ScopedEnv keel_home("KEEL_HOME", home_.path().string());
  testing::ScopedEnv xdg("XDG_CONFIG_HOME", std::nullopt);
  assembly::HostInputs in;
  in.workspace = ws();
  in.model = "rules";
  assembly::HostOptions host;
  host.store = false;
  Result<std::unique_ptr<assembly::AssembledAgent>> built = assembly::AssembledAgent::create(in, host);
  ASSERT_FALSE(built.ok());
  EXPECT_NE(built.status().message().find(".keel/settings.json"), std::string::npos) << built.status().message();
}

}  // namespace
}  // namespace keel
