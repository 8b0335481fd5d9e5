#include "store_test_util.hpp"

namespace keel::testing {
namespace {

using ApprovalStoreTest = StoreTest;

TEST_P(ApprovalStoreTest, RecordsRoundTripAndFilter) {
  ApprovalRecord a;
  a.run_id = "r_1";
  a.session_id = "s_1";
  a.workspace = "/ws";
  a.tool = "shell";
  a.arguments = R"({"command":"rm -rf build"})";
  a.verdict = ApprovalVerdict::kAllowAlways;
  a.reason = "approved by the user";
  a.decided_ms = 100;
  ApprovalRecord b = a;
  b.run_id = "r_2";
  b.verdict = ApprovalVerdict::kDeny;
  b.decided_ms = 0;  // now
  auto ida = store_->record_approval(a);
  auto idb = store_->record_approval(b);
  ASSERT_TRUE(ida.ok() && idb.ok()) << ida.status().to_string();

  auto by_session = store_->list_approvals({.run_id = "", .session_id = "s_1", .limit = 100});
  ASSERT_TRUE(by_session.ok());
  ASSERT_EQ(by_session->size(), 2u);
  EXPECT_EQ((*by_session)[0].id, *idb);  // newest first
  EXPECT_EQ((*by_session)[0].decided_ms, clock_);
  EXPECT_EQ((*by_session)[0].verdict, ApprovalVerdict::kDeny);

  auto by_run = store_->list_approvals({.run_id = "r_1", .session_id = "", .limit = 100});
  ASSERT_TRUE(by_run.ok());
  ASSERT_EQ(by_run->size(), 1u);
  const ApprovalRecord& got = (*by_run)[0];
  EXPECT_EQ(got.id, *ida);
  EXPECT_EQ(got.run_id, "r_1");
  EXPECT_EQ(got.session_id, "s_1");
  EXPECT_EQ(got.workspace, "/ws");
  EXPECT_EQ(got.tool, "shell");
  EXPECT_EQ(got.arguments, a.arguments);
  EXPECT_EQ(got.verdict, ApprovalVerdict::kAllowAlways);
  EXPECT_EQ(got.reason, a.reason);
  EXPECT_EQ(got.decided_ms, 100);
}

TEST_P(ApprovalStoreTest, RuleUpsertReplacesTheVerdict) {
  ApprovalRule rule{"/ws", "shell", "^git status", ApprovalVerdict::kAllow, 0};
  KEEL_ASSERT_OK(store_->add_approval_rule(rule));
  clock_ += 5;
  rule.verdict = ApprovalVerdict::kDeny;
  KEEL_ASSERT_OK(store_->add_approval_rule(rule));
  KEEL_ASSERT_OK(store_->add_approval_rule({"/ws", "fs_write", "", ApprovalVerdict::kAllow, 0}));
  KEEL_ASSERT_OK(store_->add_approval_rule({"/other", "shell", "^git status", ApprovalVerdict::kAllow, 0}));

  auto rules = store_->list_approval_rules("/ws");
  ASSERT_TRUE(rules.ok());
  ASSERT_EQ(rules->size(), 2u);
  EXPECT_EQ((*rules)[0].tool, "fs_write");
  EXPECT_EQ((*rules)[0].pattern, "");
  EXPECT_EQ((*rules)[1].tool, "shell");
  EXPECT_EQ((*rules)[1].pattern, "^git status");
  EXPECT_EQ((*rules)[1].verdict, ApprovalVerdict::kDeny);
  EXPECT_EQ((*rules)[1].created_ms, clock_);

  KEEL_ASSERT_OK(store_->remove_approval_rule("/ws", "shell", "^git status"));
  EXPECT_EQ(store_->list_approval_rules("/ws")->size(), 1u);
  Status again = store_->remove_approval_rule("/ws", "shell", "^git status");
  EXPECT_EQ(again.code(), ErrorCode::kNotFound);
  EXPECT_NE(again.message().find("shell"), std::string::npos);
  EXPECT_EQ(store_->list_approval_rules("/other")->size(), 1u);

  Status always = store_->add_approval_rule({"/ws", "shell", "", ApprovalVerdict::kAllowAlways, 0});
  EXPECT_EQ(always.code(), ErrorCode::kInvalidArgument);
}

KEEL_STORE_ENGINES(ApprovalStoreTest);

}  // namespace
}  // namespace keel::testing
