// The core's approval gate: the machine asks AgentConfig::approval_gate about each call and
// carries out its verdict (deny: the refusal path of a denied approval; ask: AskApproval with the
// gate's reason; allow: run), and without a gate the risk threshold decides as before.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "keel/core/agent_machine.hpp"

namespace keel {
namespace {

ToolSpec spec(std::string name, bool read_only, Risk risk) {
  ToolSpec s;
  s.name = std::move(name);
  s.description = "test tool";
  s.read_only = read_only;
  s.risk = risk;
  return s;
}

std::vector<ToolSpec> tools() {
  return {spec("fs_read", true, Risk::kLow), spec("fs_write", false, Risk::kMedium), spec("shell", false, Risk::kHigh)};
}

ModelReply calls(std::vector<std::pair<std::string, std::string>> list) {
  ModelReply r;
  for (auto& [name, args] : list) r.tool_calls.push_back({"", name, args});
  return r;
}

ModelReply text(std::string t) {
  ModelReply r;
  r.text = std::move(t);
  return r;
}

ToolResult ok(const ToolCall& c) { return {c.id, c.name, ToolStatus::kOk, "done", false, 1}; }

bool has_guard(const Decision& d, GuardKind kind) {
  return std::any_of(d.guards.begin(), d.guards.end(), [&](const GuardEvent& g) { return g.kind == kind; });
}

std::string continuation_of(const Decision& d) {
  const auto& req = std::get<CallModel>(d.action).request;
  return req.appended.empty() ? "" : req.appended.back().content;
}

// Answers from a table by tool name (unknown tools: allow) and records what it was asked.
class FakeGate final : public ApprovalGate {
 public:
  std::map<std::string, GateVerdict> verdicts;
  mutable std::vector<std::pair<std::string, std::string>> seen;  // tool, canonical arguments

  GateVerdict check(const ToolCall& call, std::string_view canonical, const ToolSpec& s) const override {
    EXPECT_EQ(s.name, call.name);
    seen.emplace_back(call.name, std::string(canonical));
    auto it = verdicts.find(call.name);
    return it == verdicts.end() ? GateVerdict::allow() : it->second;
  }
};

class ApprovalGateTest : public ::testing::Test {
 protected:
  AgentMachine make() {
    AgentConfig cfg;
    cfg.approval_gate = gate_;
    return AgentMachine(cfg, tools(), "SYSTEM", "TASK");
  }
  std::shared_ptr<FakeGate> gate_ = std::make_shared<FakeGate>();
};

TEST_F(ApprovalGateTest, DenyRefusesWithAGuardADeniedResultAndAStandingConstraint) {
  gate_->verdicts["fs_write"] = GateVerdict::deny("refused by deny pattern '\\.env' (approvals.tools.fs_write)");
  auto m = make();
  (void)m.start();
  Decision d = m.step(ModelReplied{calls({{"fs_write", R"({"path":".env","content":"x"})"}, {"fs_read", R"({"path":"a"})"}})});
  // The refusal needs no one to be asked: only the allowed call runs.
  ASSERT_TRUE(std::holds_alternative<RunTools>(d.action));
  ASSERT_EQ(std::get<RunTools>(d.action).calls.size(), 1u);
  EXPECT_EQ(std::get<RunTools>(d.action).calls[0].name, "fs_read");
  ASSERT_TRUE(has_guard(d, GuardKind::kPermissionDenied));
  auto guard = std::find_if(d.guards.begin(), d.guards.end(),
                            [](const GuardEvent& g) { return g.kind == GuardKind::kPermissionDenied; });
  EXPECT_EQ(guard->tool, "fs_write");
  EXPECT_NE(guard->detail.find("deny pattern"), std::string::npos) << guard->detail;
  EXPECT_EQ(gate_->seen[0].second, R"({"content":"x","path":".env"})");  // canonical arguments

  d = m.step(ToolsFinished{{ok(std::get<RunTools>(d.action).calls[0])}});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  const auto& hist = std::get<CallModel>(d.action).request.history;
  auto denied = std::find_if(hist.begin(), hist.end(), [](const Message& msg) {
    return msg.role == Role::kTool && msg.name == "fs_write";
  });
  ASSERT_NE(denied, hist.end());
  EXPECT_EQ(denied->metadata.at("status"), "denied");
  EXPECT_NE(denied->content.find("approvals.tools.fs_write"), std::string::npos) << denied->content;
  EXPECT_NE(continuation_of(d).find("Denied calls"), std::string::npos) << continuation_of(d);
  EXPECT_NE(continuation_of(d).find(".env"), std::string::npos);

  // Standing: still in the prompt a round later.
  d = m.step(ModelReplied{calls({{"fs_read", R"({"path":"b"})"}})});
  d = m.step(ToolsFinished{{ok(std::get<RunTools>(d.action).calls[0])}});
  EXPECT_NE(continuation_of(d).find("approvals.tools.fs_write"), std::string::npos) << continuation_of(d);
  ASSERT_EQ(m.denials().size(), 1u);
}

TEST_F(ApprovalGateTest, AskRequestsApprovalWithTheGatesReason) {
  gate_->verdicts["fs_read"] = GateVerdict::ask("fs_read needs confirmation (approval mode confirm)");
  auto m = make();
  (void)m.start();
  Decision d = m.step(ModelReplied{calls({{"fs_read", R"({"path":"a"})"}})});
  ASSERT_TRUE(std::holds_alternative<AskApproval>(d.action));
  const auto& ask = std::get<AskApproval>(d.action);
  ASSERT_EQ(ask.requests.size(), 1u);
  EXPECT_EQ(ask.requests[0].reason, "fs_read needs confirmation (approval mode confirm)");
  EXPECT_EQ(ask.requests[0].risk, Risk::kLow);
  d = m.step(ApprovalsGiven{{{ask.requests[0].call.id, ApprovalVerdict::kAllow, ""}}});
  EXPECT_TRUE(std::holds_alternative<RunTools>(d.action));
}

TEST_F(ApprovalGateTest, AllowRunsEvenAHighRiskToolWithoutAsking) {
  auto m = make();
  (void)m.start();
  Decision d = m.step(ModelReplied{calls({{"shell", R"({"command":"git status"})"}})});
  ASSERT_TRUE(std::holds_alternative<RunTools>(d.action));
  EXPECT_EQ(std::get<RunTools>(d.action).calls[0].name, "shell");
  EXPECT_FALSE(has_guard(d, GuardKind::kPermissionDenied));
}

TEST_F(ApprovalGateTest, AllowAlwaysStandsForAskButNotForDeny) {
  gate_->verdicts["shell"] = GateVerdict::ask("shell is a high-risk tool");
  auto m = make();
  (void)m.start();
  Decision d = m.step(ModelReplied{calls({{"shell", R"({"command":"ls"})"}})});
  ASSERT_TRUE(std::holds_alternative<AskApproval>(d.action));
  d = m.step(ApprovalsGiven{{{std::get<AskApproval>(d.action).requests[0].call.id, ApprovalVerdict::kAllowAlways, ""}}});
  d = m.step(ToolsFinished{{ok(std::get<RunTools>(d.action).calls[0])}});
  d = m.step(ModelReplied{calls({{"shell", R"({"command":"pwd"})"}})});
  ASSERT_TRUE(std::holds_alternative<RunTools>(d.action));  // not asked again
  d = m.step(ToolsFinished{{ok(std::get<RunTools>(d.action).calls[0])}});
  // A refusal still refuses after "allow always".
  gate_->verdicts["shell"] = GateVerdict::deny("refused by deny pattern 'rm'");
  d = m.step(ModelReplied{calls({{"shell", R"({"command":"rm x"})"}})});
  EXPECT_TRUE(std::holds_alternative<CallModel>(d.action));
  EXPECT_TRUE(has_guard(d, GuardKind::kPermissionDenied));
}

TEST_F(ApprovalGateTest, CallsStoppedByOtherGuardsNeverReachTheGate) {
  auto m = make();
  (void)m.start();
  Decision d = m.step(ModelReplied{calls({{"nope", "{}"}, {"fs_read", "[1]"}})});
  EXPECT_TRUE(gate_->seen.empty());
  EXPECT_TRUE(std::holds_alternative<CallModel>(d.action));
}

TEST_F(ApprovalGateTest, TheGatesOwnVerdictsTravelInTheDecision) {
  gate_->verdicts["fs_write"] = GateVerdict::deny("refused by deny pattern '\\.env'");
  gate_->verdicts["fs_read"] = GateVerdict::ask("fs_read needs confirmation");
  auto m = make();
  (void)m.start();
  Decision d = m.step(ModelReplied{calls({{"fs_read", R"({"path":"a"})"},
                                          {"shell", R"({"command":"ls"})"},
                                          {"fs_write", R"({"path":".env","content":"x"})"}})});
  ASSERT_TRUE(std::holds_alternative<AskApproval>(d.action));
  // fs_read is left to the approver: not a verdict of the gate's own. shell is high-risk and
  // allowed without asking; fs_write is refused.
  ASSERT_EQ(d.gate_decisions.size(), 2u);
  EXPECT_EQ(d.gate_decisions[0].call.name, "shell");
  EXPECT_EQ(d.gate_decisions[0].call.id, "call_1_2");
  EXPECT_EQ(d.gate_decisions[0].risk, Risk::kHigh);
  EXPECT_EQ(d.gate_decisions[0].verdict, ApprovalVerdict::kAllow);
  EXPECT_EQ(d.gate_decisions[1].call.name, "fs_write");
  EXPECT_EQ(d.gate_decisions[1].call.arguments, R"({"path":".env","content":"x"})");
  EXPECT_EQ(d.gate_decisions[1].risk, Risk::kMedium);
  EXPECT_EQ(d.gate_decisions[1].verdict, ApprovalVerdict::kDeny);
  EXPECT_EQ(d.gate_decisions[1].reason, "refused by deny pattern '\\.env'");
  d = m.step(ApprovalsGiven{{{std::get<AskApproval>(d.action).requests[0].call.id, ApprovalVerdict::kAllow, ""}}});
  ASSERT_TRUE(std::holds_alternative<RunTools>(d.action));
  EXPECT_TRUE(d.gate_decisions.empty());  // reported once
}

TEST_F(ApprovalGateTest, AnAllowBelowTheApprovalThresholdIsNotReported) {
  AgentConfig cfg;
  cfg.approval_gate = gate_;
  cfg.approval_threshold = Risk::kMedium;
  AgentMachine m(cfg, tools(), "SYSTEM", "TASK");
  (void)m.start();
  Decision d = m.step(ModelReplied{calls({{"fs_read", R"({"path":"a"})"}, {"fs_write", R"({"path":"b","content":"x"})"}})});
  ASSERT_TRUE(std::holds_alternative<RunTools>(d.action));
  ASSERT_EQ(d.gate_decisions.size(), 1u);  // fs_read is low-risk: it would not have been asked about
  EXPECT_EQ(d.gate_decisions[0].call.name, "fs_write");
  EXPECT_EQ(d.gate_decisions[0].verdict, ApprovalVerdict::kAllow);
}

TEST(ApprovalGateNull, WithoutAGateTheRiskThresholdDecides) {
  AgentConfig cfg;  // approval_gate nullptr, threshold high
  AgentMachine m(cfg, tools(), "SYSTEM", "TASK");
  (void)m.start();
  Decision d = m.step(ModelReplied{calls({{"shell", R"({"command":"ls"})"}, {"fs_write", R"({"path":"a","content":"b"})"}})});
  ASSERT_TRUE(std::holds_alternative<AskApproval>(d.action));
  const auto& ask = std::get<AskApproval>(d.action);
  ASSERT_EQ(ask.requests.size(), 1u);
  EXPECT_EQ(ask.requests[0].call.name, "shell");
  EXPECT_EQ(ask.requests[0].reason, "shell is a high-risk tool");

  AgentConfig medium;
  medium.approval_threshold = Risk::kMedium;
  AgentMachine m2(medium, tools(), "SYSTEM", "TASK");
  (void)m2.start();
  d = m2.step(ModelReplied{calls({{"fs_write", R"({"path":"a","content":"b"})"}, {"fs_read", R"({"path":"a"})"}})});
  ASSERT_TRUE(std::holds_alternative<AskApproval>(d.action));
  ASSERT_EQ(std::get<AskApproval>(d.action).requests.size(), 1u);
  EXPECT_EQ(std::get<AskApproval>(d.action).requests[0].reason, "fs_write is a medium-risk tool");
  EXPECT_TRUE(d.gate_decisions.empty());  // no gate, no verdicts of its own
  d = m2.step(ModelReplied{text("unexpected")});
  EXPECT_TRUE(std::holds_alternative<Fail>(d.action));  // still awaiting approval: the phase is enforced
}

}  // namespace
}  // namespace keel
