// The approvals section of keel.yaml and --approve-mode: both spellings of the keys, the "*"
// entry, merging the user file with the workspace file, and the errors a user sees.
#include <gtest/gtest.h>

#include "keel/config.hpp"
#include "runtime/config_file.hpp"
#include "support/config_dirs.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using ::keel::testing::TempDir;

Result<detail::ConfigLayer> parse(const std::string& yaml) { return detail::parse_config_text(yaml, "/ws/keel.yaml"); }

std::string error_of(const std::string& yaml) {
  Result<detail::ConfigLayer> r = parse(yaml);
  EXPECT_FALSE(r.ok()) << yaml;
  return r.ok() ? std::string() : r.status().message();
}

TEST(ConfigApprovals, ToolsModesAndPatternsInBothSpellings) {
  Result<detail::ConfigLayer> r = parse(R"(
approvals:
  default_mode: confirm
  tools:
    shell: {mode: confirm, allow_patterns: ["^git (status|log|diff)$"], deny_patterns: ['rm\s+-rf']}
    fs_delete: {mode: deny}
    fs_write:
      allowPatterns: [notes]
      denyPatterns: ['\.env']
)");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const ApprovalPolicy& p = r->approvals;
  ASSERT_TRUE(p.default_mode.has_value());
  EXPECT_EQ(*p.default_mode, ApprovalMode::kConfirm);
  EXPECT_EQ(p.default_source, "/ws/keel.yaml");
  ASSERT_EQ(p.tools.size(), 3u);
  const ToolApprovalPolicy& shell = p.tools.at("shell");
  EXPECT_EQ(shell.mode, ApprovalMode::kConfirm);
  EXPECT_EQ(shell.allow_patterns, std::vector<std::string>{"^git (status|log|diff)$"});
  EXPECT_EQ(shell.deny_patterns, std::vector<std::string>{"rm\\s+-rf"});
  EXPECT_EQ(shell.source, "/ws/keel.yaml");
  EXPECT_EQ(p.tools.at("fs_delete").mode, ApprovalMode::kDeny);
  EXPECT_FALSE(p.tools.at("fs_write").mode.has_value());
  EXPECT_EQ(p.tools.at("fs_write").allow_patterns, std::vector<std::string>{"notes"});
  EXPECT_EQ(p.tools.at("fs_write").deny_patterns, std::vector<std::string>{"\\.env"});
}

TEST(ConfigApprovals, TheStarEntrysModeIsTheDefaultMode) {
  Result<detail::ConfigLayer> r = parse("approvals:\n  tools:\n    '*': {mode: deny, deny_patterns: [secret]}\n");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_TRUE(r->approvals.default_mode.has_value());
  EXPECT_EQ(*r->approvals.default_mode, ApprovalMode::kDeny);
  EXPECT_FALSE(r->approvals.tools.at("*").mode.has_value());
  EXPECT_EQ(r->approvals.tools.at("*").deny_patterns, std::vector<std::string>{"secret"});
  EXPECT_NE(error_of("approvals:\n  default_mode: auto\n  tools:\n    '*': {mode: deny}\n").find("keep one"),
            std::string::npos);
}

TEST(ConfigApprovals, AnInvalidPatternNamesTheFileTheToolAndThePattern) {
  std::string m = error_of("approvals:\n  tools:\n    shell: {deny_patterns: ['rm (-rf']}\n");
  EXPECT_NE(m.find("/ws/keel.yaml"), std::string::npos) << m;
  EXPECT_NE(m.find("approvals.tools.shell.deny_patterns"), std::string::npos) << m;
  EXPECT_NE(m.find("'rm (-rf'"), std::string::npos) << m;
  EXPECT_NE(m.find("not a valid regular expression"), std::string::npos) << m;
  m = error_of("approvals:\n  tools:\n    fs_write: {allowPatterns: ['[a-']}\n");
  EXPECT_NE(m.find("approvals.tools.fs_write.allow_patterns"), std::string::npos) << m;
}

TEST(ConfigApprovals, MistakesAreNamed) {
  EXPECT_NE(error_of("approvals:\n  tools:\n    shell: {mode: ask}\n").find("approvals.tools.shell.mode must be auto, confirm or deny, got 'ask'"),
            std::string::npos);
  EXPECT_NE(error_of("approvals:\n  default_mode: never\n").find("approvals.default_mode must be auto, confirm or deny"),
            std::string::npos);
  EXPECT_NE(error_of("approvals:\n  tools:\n    shell: {allow_pattern: [x]}\n").find("did you mean 'allow_patterns'"),
            std::string::npos);
  EXPECT_NE(error_of("approvals:\n  tools:\n    shell: {allow_patterns: [a], allowPatterns: [b]}\n").find("keep one"),
            std::string::npos);
  EXPECT_NE(error_of("approvals:\n  tools:\n    shell: {deny_patterns: rm}\n").find("must be a list of strings"),
            std::string::npos);
  EXPECT_NE(error_of("approvals:\n  tool: {}\n").find("unknown key 'approvals.tool'"), std::string::npos);
  EXPECT_NE(error_of("approvals: [shell]\n").find("approvals must be a mapping"), std::string::npos);
}

using ConfigApprovalsResolve = testing::ConfigDirsTest;

TEST_F(ConfigApprovalsResolve, TheWorkspaceFilesModesWinAndPatternsOfBothApply) {
  dir.write("home/.config/keel/config.yaml",
            "approvals:\n  default_mode: confirm\n  tools:\n    shell: {mode: deny, deny_patterns: [sudo]}\n");
  dir.write("ws/keel.yaml", "approvals:\n  tools:\n    shell: {mode: confirm, deny_patterns: ['rm\\s']}\n");
  Result<KeelConfig> cfg = resolve_config(in);
  ASSERT_TRUE(cfg.ok()) << cfg.status().to_string();
  const ApprovalPolicy& p = cfg->approvals;
  EXPECT_EQ(p.default_mode, ApprovalMode::kConfirm);  // only the user file sets it
  const ToolApprovalPolicy& shell = p.tools.at("shell");
  EXPECT_EQ(shell.mode, ApprovalMode::kConfirm);
  EXPECT_EQ(shell.deny_patterns, (std::vector<std::string>{"sudo", "rm\\s"}));
  EXPECT_NE(shell.source.find("config.yaml"), std::string::npos) << shell.source;
  EXPECT_NE(shell.source.find("ws/keel.yaml"), std::string::npos) << shell.source;
  EXPECT_FALSE(p.override_mode.has_value());
}

TEST_F(ConfigApprovalsResolve, ApproveModeOverridesEveryModeAndRejectsOtherWords) {
  dir.write("home/.config/keel/config.yaml", "approvals:\n  tools:\n    shell: {mode: auto}\n");
  in.approve_mode = "deny";
  Result<KeelConfig> cfg = resolve_config(in);
  ASSERT_TRUE(cfg.ok()) << cfg.status().to_string();
  EXPECT_EQ(cfg->approvals.override_mode, ApprovalMode::kDeny);
  EXPECT_EQ(cfg->approvals.override_source, "--approve-mode");
  EXPECT_EQ(cfg->approvals.tools.at("shell").mode, ApprovalMode::kAuto);  // kept; the override wins when used

  in.approve_mode = "yes";
  Result<KeelConfig> bad = resolve_config(in);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("--approve-mode must be auto, confirm or deny, got 'yes'"), std::string::npos);
}

TEST_F(ConfigApprovalsResolve, AWorkspaceFileMayTightenButNotLoosen) {
  for (const char* loosening : {"approvals:\n  default_mode: auto\n", "approvals:\n  tools:\n    shell: {mode: auto}\n",
                                "approvals:\n  tools:\n    shell: {allow_patterns: ['^git']}\n"}) {
    dir.write("ws/keel.yaml", loosening);
    Result<KeelConfig> cfg = resolve_config(in);
    ASSERT_FALSE(cfg.ok()) << loosening;
    EXPECT_NE(cfg.status().message().find("only honoured in your user config"), std::string::npos)
        << cfg.status().message();
    dir.write("home/.config/keel/config.yaml", loosening);  // the same from the user is fine
    dir.write("ws/keel.yaml", "approvals:\n  tools:\n    shell: {mode: confirm, deny_patterns: [sudo]}\n");
    EXPECT_TRUE(resolve_config(in).ok()) << loosening;
    dir.write("home/.config/keel/config.yaml", "");
  }
}

TEST_F(ConfigApprovalsResolve, WebAllowListAndFsRootsComeOnlyFromTheUserConfig) {
  dir.write("home/.config/keel/config.yaml",
            "tools:\n  web: {allowed: [127.0.0.1, 10.0.0.0/8], timeout_ms: 5000}\n"
            "  fs:\n    roots:\n      - {name: docs, path: /srv/docs, read_only: true}\n");
  Result<KeelConfig> cfg = resolve_config(in);
  ASSERT_TRUE(cfg.ok()) << cfg.status().to_string();
  EXPECT_EQ(cfg->web_allowed, (std::vector<std::string>{"127.0.0.1", "10.0.0.0/8"}));
  EXPECT_EQ(cfg->web_timeout_ms, 5000);
  ASSERT_EQ(cfg->fs_roots.size(), 1u);
  EXPECT_EQ(cfg->fs_roots[0].name, "docs");
  EXPECT_TRUE(cfg->fs_roots[0].read_only);

  dir.write("ws/keel.yaml", "tools:\n  web: {allowed: [169.254.169.254]}\n");
  Result<KeelConfig> web = resolve_config(in);
  ASSERT_FALSE(web.ok());
  EXPECT_NE(web.status().message().find("tools.web.allowed is only honoured in your user config"), std::string::npos);
  dir.write("ws/keel.yaml", "tools:\n  fs:\n    roots: [{name: home, path: /home}]\n");
  Result<KeelConfig> fs = resolve_config(in);
  ASSERT_FALSE(fs.ok());
  EXPECT_NE(fs.status().message().find("tools.fs.roots is only honoured"), std::string::npos);
  dir.write("ws/keel.yaml", "tools:\n  fs:\n    roots: [{name: x}]\n");
  Result<KeelConfig> bad = resolve_config(in);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("needs a name and a path"), std::string::npos);
  dir.write("ws/keel.yaml", "tools:\n  web: {enabled: false}\n");  // turning tools off is the workspace's call
  Result<KeelConfig> off = resolve_config(in);
  ASSERT_TRUE(off.ok()) << off.status().to_string();
  EXPECT_FALSE(off->web_enabled);
}

TEST(ConfigApprovals, ModeNamesRoundTrip) {
  for (ApprovalMode m : {ApprovalMode::kAuto, ApprovalMode::kConfirm, ApprovalMode::kDeny}) {
    EXPECT_EQ(parse_approval_mode(approval_mode_name(m)), m);
  }
  EXPECT_FALSE(parse_approval_mode("Auto").has_value());
  EXPECT_TRUE(check_approval_pattern("^git status$").ok());
  EXPECT_TRUE(check_approval_pattern("").ok());
  EXPECT_EQ(check_approval_pattern("(").code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace keel
