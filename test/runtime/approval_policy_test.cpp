// The approval policy gate: the evaluation order (deny patterns, allow patterns, remembered
// decisions, mode), risk defaults, the "*" entry and default mode, --approve-mode, shell patterns
// over the command line, invalid patterns, and its own decisions as the machine reports them.
#include "runtime/approval_policy.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "keel/core/agent_machine.hpp"

namespace keel {
namespace {

using detail::ApprovalPolicyGate;
using Kind = GateVerdict::Kind;

ToolSpec spec(std::string name, Risk risk) {
  ToolSpec s;
  s.name = std::move(name);
  s.risk = risk;
  return s;
}

ApprovalRule rule(std::string tool, std::string pattern, ApprovalVerdict verdict) {
  return {"/ws", std::move(tool), std::move(pattern), verdict, 0};
}

GateVerdict check(const ApprovalPolicyGate& gate, const std::string& tool, Risk risk, const nlohmann::json& args) {
  std::string canonical = args.dump();  // nlohmann sorts object keys: canonical form
  return gate.check(ToolCall{"call_1", tool, canonical}, canonical, spec(tool, risk));
}

std::shared_ptr<ApprovalPolicyGate> make_gate(const ApprovalPolicy& policy, std::vector<ApprovalRule> saved = {}) {
  auto gate = ApprovalPolicyGate::create(policy, Risk::kHigh, saved);
  EXPECT_TRUE(gate.ok()) << gate.status().to_string();
  return gate.ok() ? *gate : nullptr;
}

const char* kind_name(Kind k) { return k == Kind::kAllow ? "allow" : k == Kind::kAsk ? "ask" : "deny"; }

// One row of the order table: a policy for "shell" and saved rules, a command, the verdict and a
// word the reason must contain (naming the rule that decided).
struct OrderCase {
  const char* name;
  std::optional<ApprovalMode> mode;
  std::vector<std::string> allow;
  std::vector<std::string> deny;
  std::vector<ApprovalRule> saved;
  std::string command;
  Kind expected;
  std::string reason_has;
};

TEST(ApprovalPolicyOrder, EachStepBeatsTheNext) {
  const std::vector<OrderCase> cases = {
      {"deny pattern beats allow pattern", ApprovalMode::kAuto, {"^git"}, {"push"}, {}, "git push", Kind::kDeny,
       "deny pattern 'push'"},
      {"deny pattern beats saved allow", std::nullopt, {}, {"rm\\s+-rf"}, {rule("shell", "", ApprovalVerdict::kAllow)},
       "rm -rf build", Kind::kDeny, "deny pattern"},
      {"allow pattern beats saved deny", std::nullopt, {"^git status$"}, {}, {rule("shell", "", ApprovalVerdict::kDeny)},
       "git status", Kind::kAllow, "allow pattern '^git status$'"},
      {"allow pattern beats mode deny", ApprovalMode::kDeny, {"^ls\\b"}, {}, {}, "ls -la", Kind::kAllow, "allow pattern"},
      {"saved allow beats mode confirm", ApprovalMode::kConfirm, {}, {}, {rule("shell", "", ApprovalVerdict::kAllow)},
       "make test", Kind::kAllow, "saved for this workspace"},
      {"saved deny beats mode auto", ApprovalMode::kAuto, {}, {}, {rule("shell", "^make", ApprovalVerdict::kDeny)},
       "make install", Kind::kDeny, "saved for this workspace"},
      {"saved deny beats saved allow", std::nullopt, {}, {},
       {rule("shell", "", ApprovalVerdict::kAllow), rule("shell", "install", ApprovalVerdict::kDeny)},
       "make install", Kind::kDeny, "matching 'install'"},
      {"a saved pattern that does not match leaves it to the mode", ApprovalMode::kAuto, {}, {},
       {rule("shell", "^make", ApprovalVerdict::kDeny)}, "ls", Kind::kAllow, "approval mode auto"},
      {"mode deny when nothing else matches", ApprovalMode::kDeny, {"^ls"}, {"rm"}, {}, "cat x", Kind::kDeny,
       "approval mode deny"},
      {"mode confirm asks", ApprovalMode::kConfirm, {}, {}, {}, "cat x", Kind::kAsk, "needs confirmation"},
      {"no mode: high risk asks", std::nullopt, {}, {}, {}, "cat x", Kind::kAsk, "high-risk"},
  };
  for (const OrderCase& c : cases) {
    SCOPED_TRACE(c.name);
    ApprovalPolicy policy;
    ToolApprovalPolicy& shell = policy.tools["shell"];
    shell.mode = c.mode;
    shell.allow_patterns = c.allow;
    shell.deny_patterns = c.deny;
    shell.source = "/ws/keel.yaml";
    auto gate = make_gate(policy, c.saved);
    ASSERT_TRUE(gate);
    GateVerdict v = check(*gate, "shell", Risk::kHigh, {{"command", c.command}});
    EXPECT_EQ(kind_name(v.kind), std::string(kind_name(c.expected))) << v.reason;
    EXPECT_NE(v.reason.find(c.reason_has), std::string::npos) << v.reason;
  }
}

TEST(ApprovalPolicyOrder, RiskSetsTheDefaultMode) {
  auto gate = make_gate({});
  EXPECT_EQ(check(*gate, "fs_read", Risk::kLow, {{"path", "a"}}).kind, Kind::kAllow);
  EXPECT_EQ(check(*gate, "fs_write", Risk::kMedium, {{"path", "a"}}).kind, Kind::kAllow);
  GateVerdict high = check(*gate, "fs_delete", Risk::kHigh, {{"path", "a"}});
  EXPECT_EQ(high.kind, Kind::kAsk);
  EXPECT_EQ(high.reason, "fs_delete is a high-risk tool");

  // The threshold is the host's: at medium, medium-risk tools ask too.
  auto strict = ApprovalPolicyGate::create({}, Risk::kMedium, {});
  ASSERT_TRUE(strict.ok());
  EXPECT_EQ(check(**strict, "fs_write", Risk::kMedium, {{"path", "a"}}).kind, Kind::kAsk);
  EXPECT_EQ(check(**strict, "fs_read", Risk::kLow, {{"path", "a"}}).kind, Kind::kAllow);
}

TEST(ApprovalPolicyOrder, StarAndDefaultModeApplyToEveryToolWithoutItsOwnMode) {
  ApprovalPolicy policy;
  policy.default_mode = ApprovalMode::kConfirm;
  policy.default_source = "/ws/keel.yaml";
  policy.tools["fs_read"].mode = ApprovalMode::kAuto;
  policy.tools["*"].deny_patterns = {"secret"};
  auto gate = make_gate(policy);
  GateVerdict read = check(*gate, "fs_read", Risk::kLow, {{"path", "notes.txt"}});
  EXPECT_EQ(read.kind, Kind::kAllow);  // its own mode wins over the default
  GateVerdict list = check(*gate, "fs_list", Risk::kLow, {{"path", "."}});
  EXPECT_EQ(list.kind, Kind::kAsk);
  EXPECT_NE(list.reason.find("approvals.default_mode in /ws/keel.yaml"), std::string::npos) << list.reason;
  GateVerdict secret = check(*gate, "fs_read", Risk::kLow, {{"path", "secret.txt"}});
  EXPECT_EQ(secret.kind, Kind::kDeny);  // "*"'s patterns apply to every tool
  EXPECT_NE(secret.reason.find("approvals.tools.*"), std::string::npos) << secret.reason;
}

TEST(ApprovalPolicyOrder, OverrideModeReplacesEveryModeButNotPatternsOrRules) {
  ApprovalPolicy policy;
  policy.tools["shell"].mode = ApprovalMode::kAuto;
  policy.tools["shell"].allow_patterns = {"^git status$"};
  policy.default_mode = ApprovalMode::kAuto;
  policy.override_mode = ApprovalMode::kDeny;
  policy.override_source = "--approve-mode";
  auto gate = make_gate(policy, {rule("fs_write", "", ApprovalVerdict::kAllow)});
  GateVerdict shell = check(*gate, "shell", Risk::kHigh, {{"command", "ls"}});
  EXPECT_EQ(shell.kind, Kind::kDeny);
  EXPECT_NE(shell.reason.find("--approve-mode"), std::string::npos) << shell.reason;
  EXPECT_EQ(check(*gate, "fs_read", Risk::kLow, {{"path", "a"}}).kind, Kind::kDeny);
  EXPECT_EQ(check(*gate, "shell", Risk::kHigh, {{"command", "git status"}}).kind, Kind::kAllow);
  EXPECT_EQ(check(*gate, "fs_write", Risk::kMedium, {{"path", "a"}}).kind, Kind::kAllow);
}

TEST(ApprovalPolicyPatterns, ShellPatternsSeeTheCommandLineOtherToolsTheCanonicalArguments) {
  ApprovalPolicy policy;
  policy.tools["shell"].allow_patterns = {"^git (status|log|diff)$"};
  policy.tools["fs_write"].deny_patterns = {R"re(^\{"content":"[^"]*","path":"\.env")re"};
  auto gate = make_gate(policy);
  // The command line itself: an anchored pattern matches it exactly, JSON quoting never gets in.
  EXPECT_EQ(check(*gate, "shell", Risk::kHigh, {{"command", "git status"}, {"timeout_ms", 5}}).kind, Kind::kAllow);
  EXPECT_EQ(check(*gate, "shell", Risk::kHigh, {{"command", "git status; rm -rf ~"}}).kind, Kind::kAsk);
  // Other tools: canonical JSON with sorted keys.
  EXPECT_EQ(check(*gate, "fs_write", Risk::kMedium, {{"path", ".env"}, {"content", "x"}}).kind, Kind::kDeny);
  EXPECT_EQ(check(*gate, "fs_write", Risk::kMedium, {{"path", "a.txt"}, {"content", "x"}}).kind, Kind::kAllow);
  EXPECT_EQ(detail::approval_subject("shell", R"({"command":"ls -la"})"), "ls -la");
  EXPECT_EQ(detail::approval_subject("shell", R"({"command":5})"), R"({"command":5})");
  EXPECT_EQ(detail::approval_subject("fs_read", R"({"path":"a"})"), R"({"path":"a"})");
}

TEST(ApprovalPolicyPatterns, AnInvalidPatternIsAnErrorNamingTheToolAndThePattern) {
  ApprovalPolicy policy;
  policy.tools["shell"].deny_patterns = {"rm (-rf"};
  policy.tools["shell"].source = "/ws/keel.yaml";
  auto gate = ApprovalPolicyGate::create(policy, Risk::kHigh, {});
  ASSERT_FALSE(gate.ok());
  EXPECT_EQ(gate.status().code(), ErrorCode::kInvalidArgument);
  const std::string m = gate.status().message();
  EXPECT_NE(m.find("approvals.tools.shell"), std::string::npos) << m;
  EXPECT_NE(m.find("'rm (-rf'"), std::string::npos) << m;
  EXPECT_NE(m.find("/ws/keel.yaml"), std::string::npos) << m;
  EXPECT_NE(m.find("deny_patterns"), std::string::npos) << m;
}

TEST(ApprovalPolicyRemembered, ARememberedDecisionAppliesFromTheNextCheck) {
  auto gate = make_gate({});
  EXPECT_EQ(check(*gate, "shell", Risk::kHigh, {{"command", "make"}}).kind, Kind::kAsk);
  ASSERT_TRUE(gate->remember(rule("shell", "^make$", ApprovalVerdict::kAllow)).ok());
  EXPECT_EQ(check(*gate, "shell", Risk::kHigh, {{"command", "make"}}).kind, Kind::kAllow);
  EXPECT_EQ(check(*gate, "shell", Risk::kHigh, {{"command", "make install"}}).kind, Kind::kAsk);
  // Remembering the same tool and pattern again replaces the verdict.
  ASSERT_TRUE(gate->remember(rule("shell", "^make$", ApprovalVerdict::kDeny)).ok());
  EXPECT_EQ(check(*gate, "shell", Risk::kHigh, {{"command", "make"}}).kind, Kind::kDeny);
  EXPECT_FALSE(gate->remember(rule("shell", "(", ApprovalVerdict::kDeny)).ok());
  EXPECT_FALSE(gate->remember(rule("shell", "", ApprovalVerdict::kAllowAlways)).ok());
}

TEST(ApprovalPolicyRemembered, UnusableSavedRulesNeverMatch) {
  auto gate = make_gate({}, {rule("shell", "(", ApprovalVerdict::kAllow)});
  EXPECT_EQ(check(*gate, "shell", Risk::kHigh, {{"command", "("}}).kind, Kind::kAsk);
}

// The policy's own decisions reach the host in the machine's Decision::gate_decisions.
TEST(ApprovalPolicyLog, RefusalsAndAllowsThatSkipARiskQuestionAreReported) {
  ApprovalPolicy policy;
  policy.tools["shell"].allow_patterns = {"^ls$"};
  policy.tools["fs_write"].mode = ApprovalMode::kDeny;
  auto gate = make_gate(policy);
  AgentConfig cfg;  // approval_threshold high: the gate's confirm_at
  cfg.approval_gate = gate;
  AgentMachine m(cfg, {spec("fs_read", Risk::kLow), spec("shell", Risk::kHigh), spec("fs_write", Risk::kMedium)},
                 "SYSTEM", "TASK");
  (void)m.start();
  ModelReply reply;
  reply.tool_calls = {{"c1", "fs_read", R"({"path":"a"})"},       // plain auto: not reported
                      {"c2", "shell", R"({"command":"make"})"},   // asked: the approver's answer is logged instead
                      {"c3", "shell", R"({"command":"ls"})"},     // allowed without the risk question
                      {"c4", "fs_write", R"({"path":"a"})"}};     // refused
  Decision d = m.step(ModelReplied{reply});
  ASSERT_TRUE(std::holds_alternative<AskApproval>(d.action));
  const std::vector<GateDecision>& log = d.gate_decisions;
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].call.name, "shell");
  EXPECT_EQ(log[0].verdict, ApprovalVerdict::kAllow);
  EXPECT_NE(log[0].reason.find("allow pattern '^ls$'"), std::string::npos);
  EXPECT_EQ(log[1].call.name, "fs_write");
  EXPECT_EQ(log[1].verdict, ApprovalVerdict::kDeny);
  EXPECT_EQ(log[1].risk, Risk::kMedium);
  EXPECT_NE(log[1].reason.find("approval mode deny"), std::string::npos) << log[1].reason;
  d = m.step(ApprovalsGiven{{{"c2", ApprovalVerdict::kAllow, ""}}});
  ASSERT_TRUE(std::holds_alternative<RunTools>(d.action));
  EXPECT_TRUE(d.gate_decisions.empty());  // each is reported once
}

}  // namespace
}  // namespace keel
