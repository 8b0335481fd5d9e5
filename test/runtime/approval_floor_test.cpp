// The approval gate's floor (a client's requested mode): it makes the operator's verdict stricter
// and never looser, and its reasons say where the verdict came from.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runtime/approval_policy.hpp"

namespace keel {
namespace {

using detail::ApprovalPolicyGate;
using Kind = GateVerdict::Kind;

ToolSpec floor_spec(std::string name, Risk risk) {
  ToolSpec s;
  s.name = std::move(name);
  s.risk = risk;
  return s;
}

GateVerdict floor_check(const ApprovalPolicy& policy, const std::string& tool, Risk risk, const nlohmann::json& args,
                  std::vector<ApprovalRule> saved = {}) {
  auto gate = ApprovalPolicyGate::create(policy, Risk::kHigh, saved);
  EXPECT_TRUE(gate.ok()) << gate.status().to_string();
  if (!gate.ok()) return GateVerdict::deny("no gate");
  std::string canonical = args.dump();
  return (*gate)->check(ToolCall{"call_1", tool, canonical}, canonical, floor_spec(tool, risk));
}

ApprovalPolicy with_floor(ApprovalPolicy p, ApprovalMode floor) {
  p.floor_mode = floor;
  p.floor_source = "the run's approval_mode";
  return p;
}

const nlohmann::json kFloorEcho = {{"command", "echo hi"}};

TEST(ApprovalFloor, AutoFromAClientChangesNothing) {
  ApprovalPolicy none;  // shell is high risk: asked about
  EXPECT_EQ(floor_check(with_floor(none, ApprovalMode::kAuto), "shell", Risk::kHigh, kFloorEcho).kind, Kind::kAsk);
  ApprovalPolicy confirm;
  confirm.tools["shell"].mode = ApprovalMode::kConfirm;
  EXPECT_EQ(floor_check(with_floor(confirm, ApprovalMode::kAuto), "shell", Risk::kHigh, kFloorEcho).kind, Kind::kAsk);
  ApprovalPolicy deny;
  deny.default_mode = ApprovalMode::kDeny;
  EXPECT_EQ(floor_check(with_floor(deny, ApprovalMode::kAuto), "fs_read", Risk::kLow, {{"path", "a"}}).kind, Kind::kDeny);
  // Where the operator lets a call run, it still runs.
  EXPECT_EQ(floor_check(with_floor(none, ApprovalMode::kAuto), "fs_read", Risk::kLow, {{"path", "a"}}).kind, Kind::kAllow);
}

TEST(ApprovalFloor, ConfirmAsksAboutEverythingTheOperatorWouldRun) {
  ApprovalPolicy p;
  p.default_mode = ApprovalMode::kAuto;
  p.tools["shell"].allow_patterns = {"^echo "};
  std::vector<ApprovalRule> saved = {{"/ws", "fs_write", "", ApprovalVerdict::kAllow, 0}};
  struct Case {
    const char* tool;
    Risk risk;
    nlohmann::json args;
    const char* operator_reason;  // what the operator's policy alone said
  };
  for (const Case& c : {Case{"shell", Risk::kHigh, kFloorEcho, "allow pattern '^echo '"},
                        Case{"fs_write", Risk::kMedium, {{"path", "x"}}, "a rule saved for this workspace"},
                        Case{"fs_read", Risk::kLow, {{"path", "x"}}, "approval mode auto"}}) {
    GateVerdict before = floor_check(p, c.tool, c.risk, c.args, saved);
    ASSERT_EQ(before.kind, Kind::kAllow) << c.tool;
    GateVerdict after = floor_check(with_floor(p, ApprovalMode::kConfirm), c.tool, c.risk, c.args, saved);
    EXPECT_EQ(after.kind, Kind::kAsk) << c.tool;
    EXPECT_NE(after.reason.find("approval mode confirm requested by the run's approval_mode"), std::string::npos)
        << after.reason;
    EXPECT_NE(after.reason.find(c.operator_reason), std::string::npos) << after.reason;
  }
  // A call the operator already asks about is asked about, with the operator's reason.
  ApprovalPolicy by_risk;
  GateVerdict asked = floor_check(with_floor(by_risk, ApprovalMode::kConfirm), "shell", Risk::kHigh, kFloorEcho);
  EXPECT_EQ(asked.kind, Kind::kAsk);
  EXPECT_EQ(asked.reason, "shell is a high-risk tool");
}

TEST(ApprovalFloor, DenyRefusesEverythingAndOperatorDenialsKeepTheirReason) {
  ApprovalPolicy p;
  p.default_mode = ApprovalMode::kAuto;
  p.tools["shell"].deny_patterns = {"rm -rf"};
  GateVerdict low = floor_check(with_floor(p, ApprovalMode::kDeny), "fs_read", Risk::kLow, {{"path", "a"}});
  EXPECT_EQ(low.kind, Kind::kDeny);
  EXPECT_NE(low.reason.find("fs_read is not allowed in this run (approval mode deny requested by the run's approval_mode"),
            std::string::npos)
      << low.reason;
  GateVerdict asked = floor_check(with_floor(ApprovalPolicy{}, ApprovalMode::kDeny), "shell", Risk::kHigh, kFloorEcho);
  EXPECT_EQ(asked.kind, Kind::kDeny);
  // The operator's refusal stays the operator's: its reason names the pattern, under any floor.
  for (ApprovalMode floor : {ApprovalMode::kAuto, ApprovalMode::kConfirm, ApprovalMode::kDeny}) {
    GateVerdict refused = floor_check(with_floor(p, floor), "shell", Risk::kHigh, {{"command", "rm -rf /"}});
    EXPECT_EQ(refused.kind, Kind::kDeny);
    EXPECT_NE(refused.reason.find("deny pattern 'rm -rf'"), std::string::npos) << refused.reason;
  }
}

TEST(ApprovalFloor, AClientModeNeverLoosensWhatTheOperatorConfigured) {
  // Every operator mode against every client mode: the result is the stricter of the two.
  const ApprovalMode modes[] = {ApprovalMode::kAuto, ApprovalMode::kConfirm, ApprovalMode::kDeny};
  auto rank = [](Kind k) { return k == Kind::kAllow ? 0 : k == Kind::kAsk ? 1 : 2; };
  for (ApprovalMode op : modes) {
    for (ApprovalMode client : modes) {
      ApprovalPolicy p;
      p.tools["shell"].mode = op;
      ApprovalPolicy requested = p;
      ASSERT_TRUE(apply_requested_approval_mode(requested, approval_mode_name(client), "the client").ok());
      Kind got = floor_check(requested, "shell", Risk::kHigh, kFloorEcho).kind;
      int expected = std::max(static_cast<int>(op), static_cast<int>(client));  // auto 0 < confirm 1 < deny 2
      EXPECT_EQ(rank(got), expected) << "operator " << approval_mode_name(op) << ", client "
                                     << approval_mode_name(client);
    }
  }
}

TEST(ApprovalFloor, WithClientMayLoosenTheClientsModeReplacesTheOperators) {
  ApprovalPolicy p;
  p.tools["shell"].mode = ApprovalMode::kConfirm;
  p.client_may_loosen = true;
  ASSERT_TRUE(apply_requested_approval_mode(p, "auto", "the run's approval_mode").ok());
  GateVerdict v = floor_check(p, "shell", Risk::kHigh, kFloorEcho);
  EXPECT_EQ(v.kind, Kind::kAllow);
  EXPECT_NE(v.reason.find("client_may_loosen"), std::string::npos) << v.reason;
}

}  // namespace
}  // namespace keel
