// What keel.yaml lets a client of keel serve change: approvals.client_may_loosen (user config
// only), a workspace profile's approve_mode (never auto), `secrets:`, and how a requested mode is
// applied (apply_requested_approval_mode).
#include <gtest/gtest.h>

#include "keel/config.hpp"
#include "support/config_dirs.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using ::keel::testing::TempDir;

using ConfigClientPolicy = testing::ConfigDirsTest;

TEST_F(ConfigClientPolicy, ClientMayLoosenIsUnsetByDefaultAndReadFromTheUserConfig) {
  Result<KeelConfig> none = resolve_config(in);
  ASSERT_TRUE(none.ok()) << none.status().to_string();
  EXPECT_FALSE(none->approvals.client_may_loosen.value_or(false));

  dir.write("home/.config/keel/config.yaml", "approvals:\n  client_may_loosen: true\n");
  Result<KeelConfig> on = resolve_config(in);
  ASSERT_TRUE(on.ok()) << on.status().to_string();
  EXPECT_EQ(on->approvals.client_may_loosen, true);
  EXPECT_NE(on->approvals.client_may_loosen_source.find("config.yaml"), std::string::npos);

  dir.write("home/.config/keel/config.yaml", "approvals:\n  clientMayLoosen: true\n");
  EXPECT_EQ(resolve_config(in)->approvals.client_may_loosen, true);

  // The workspace may turn it off again (that only tightens) ...
  dir.write("ws/keel.yaml", "approvals:\n  client_may_loosen: false\n");
  Result<KeelConfig> off = resolve_config(in);
  ASSERT_TRUE(off.ok()) << off.status().to_string();
  EXPECT_EQ(off->approvals.client_may_loosen, false);
}

TEST_F(ConfigClientPolicy, AWorkspaceFileCannotLetClientsLoosen) {
  dir.write("ws/keel.yaml", "approvals:\n  client_may_loosen: true\n");
  Result<KeelConfig> cfg = resolve_config(in);
  ASSERT_FALSE(cfg.ok());
  EXPECT_NE(cfg.status().message().find("approvals.client_may_loosen: true is only honoured in your user config"),
            std::string::npos)
      << cfg.status().message();
  dir.write("ws/keel.yaml", "approvals:\n  client_may_loosen: maybe\n");
  Result<KeelConfig> bad = resolve_config(in);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("approvals.client_may_loosen"), std::string::npos) << bad.status().message();
}

TEST_F(ConfigClientPolicy, AWorkspaceProfileCannotRunEverythingWithoutAsking) {
  dir.write("ws/keel.yaml", "profiles:\n  yolo:\n    approve_mode: auto\n");
  Result<KeelConfig> cfg = resolve_config(in);
  ASSERT_FALSE(cfg.ok());
  EXPECT_NE(cfg.status().message().find("profiles.yolo.approve_mode: auto is only honoured in your user config"),
            std::string::npos)
      << cfg.status().message();
  dir.write("ws/keel.yaml", "profiles:\n  careful:\n    approve_mode: confirm\n");
  EXPECT_TRUE(resolve_config(in).ok());
  dir.write("ws/keel.yaml", "");
  dir.write("home/.config/keel/config.yaml", "profiles:\n  yolo:\n    approve_mode: auto\n");  // the user's own choice
  Result<KeelConfig> user = resolve_config(in);
  ASSERT_TRUE(user.ok()) << user.status().to_string();
  ASSERT_EQ(user->profiles.size(), 1u);
  EXPECT_EQ(user->profiles[0].approve_mode, std::optional<std::string>("auto"));
}

TEST_F(ConfigClientPolicy, SecretsListsNamesFromBothFiles) {
  dir.write("home/.config/keel/config.yaml", "secrets: [DB_URL, SIGNING_SEED]\n");
  dir.write("ws/keel.yaml", "secrets: [DEPLOY_HOOK, DB_URL]\n");
  Result<KeelConfig> cfg = resolve_config(in);
  ASSERT_TRUE(cfg.ok()) << cfg.status().to_string();
  EXPECT_EQ(cfg->secrets, (std::vector<std::string>{"DB_URL", "SIGNING_SEED", "DEPLOY_HOOK"}));
  dir.write("ws/keel.yaml", "secrets: DB_URL\n");
  Result<KeelConfig> bad = resolve_config(in);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("secrets"), std::string::npos) << bad.status().message();
}

TEST(RequestedApprovalMode, TightensUnlessTheOperatorAllowsLoosening) {
  ApprovalPolicy operator_policy;
  operator_policy.default_mode = ApprovalMode::kConfirm;

  ApprovalPolicy p = operator_policy;
  ASSERT_TRUE(apply_requested_approval_mode(p, "auto", "the run's approval_mode").ok());
  EXPECT_FALSE(p.override_mode.has_value());  // the operator's modes stay
  EXPECT_EQ(p.floor_mode, ApprovalMode::kAuto);
  EXPECT_EQ(p.floor_source, "the run's approval_mode");

  p = operator_policy;
  p.client_may_loosen = true;
  p.client_may_loosen_source = "/home/me/.config/keel/config.yaml";
  ASSERT_TRUE(apply_requested_approval_mode(p, "auto", "the run's approval_mode").ok());
  EXPECT_EQ(p.override_mode, ApprovalMode::kAuto);
  EXPECT_FALSE(p.floor_mode.has_value());
  EXPECT_NE(p.override_source.find("client_may_loosen"), std::string::npos) << p.override_source;

  p = operator_policy;
  Status bad = apply_requested_approval_mode(p, "yes", "x");
  EXPECT_EQ(bad.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("approval_mode must be auto, confirm or deny, got 'yes'"), std::string::npos);
  EXPECT_FALSE(p.floor_mode.has_value());
}

}  // namespace
}  // namespace keel
