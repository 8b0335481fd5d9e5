// The Agent with the approval policy: the policy from AgentOptions decides before the approver,
// remembered decisions ("always allow", "always deny") carry over to later runs of the same
// workspace and no other, what the policy decided on its own is reported and logged, and cache
// hits are marked on the tool result.
#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>

#include "keel/agent.hpp"
#include "keel/store/sqlite_store.hpp"
#include "support/fake_llm.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using testing::FakeLlm;

std::unique_ptr<Tool> deploy_tool(std::atomic<int>* runs) {
  ToolSpec s;
  s.name = "deploy";
  s.description = "deploys";
  s.parameters_schema = R"({"type":"object","properties":{"target":{"type":"string"}}})";
  s.risk = Risk::kHigh;
  return make_tool(s, [runs](const nlohmann::json& args, const ToolContext&) -> Result<std::string> {
    ++*runs;
    return "deployed " + args.value("target", std::string());
  });
}

std::unique_ptr<Tool> lookup_tool(std::atomic<int>* runs) {
  ToolSpec s;
  s.name = "lookup";
  s.description = "looks a key up";
  s.parameters_schema = R"({"type":"object","properties":{"key":{"type":"string"}},"required":["key"]})";
  s.read_only = true;
  s.concurrency_safe = true;
  s.cacheable = true;
  return make_tool(s, [runs](const nlohmann::json& args, const ToolContext&) -> Result<std::string> {
    ++*runs;
    return "value of " + args["key"].get<std::string>();
  });
}

// Answers every request with `verdict`; on kDeny with `never` set, first remembers "always deny"
// through the agent, as the terminal approver does for "never".
struct ScriptedApprover : Approver {
  ApprovalVerdict verdict = ApprovalVerdict::kAllow;
  Agent* never_through = nullptr;
  int asked = 0;
  std::vector<std::string> reasons;
  std::vector<ApprovalDecision> decide(const std::vector<ApprovalRequest>& reqs, std::stop_token) override {
    std::vector<ApprovalDecision> out;
    for (const auto& r : reqs) {
      ++asked;
      reasons.push_back(r.reason);
      if (never_through != nullptr) {
        EXPECT_TRUE(never_through->remember_approval(r.call.name, "", ApprovalVerdict::kDeny).ok());
      }
      out.push_back({r.call.id, verdict, "scripted"});
    }
    return out;
  }
};

// Keeps the approval decisions and tool results the hooks see.
struct Seen : Hooks {
  std::vector<ApprovalDecision> decided;
  std::vector<ToolResult> results;
  void on_approval_decided(RunContext&, const ApprovalRequest&, const ApprovalDecision& d) override {
    decided.push_back(d);
  }
  void on_tool_result(RunContext&, const ToolCall&, const ToolResult& r) override { results.push_back(r); }
};

class AgentApprovalsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions so;
    so.path = home_.path() / "keel.db";
    auto s = open_sqlite_store(so);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    store_ = std::move(s).value();
    ASSERT_TRUE(tools_.add(deploy_tool(&deploys_)).ok());
    ASSERT_TRUE(tools_.add(lookup_tool(&lookups_)).ok());
  }
  AgentOptions options(const testing::TempDir& ws) {
    AgentOptions o;
    o.workspace = ws.path().string();
    o.load_agents_md = false;
    o.stream = false;
    o.store = store_.get();
    return o;
  }
  // One run of a fresh Agent (as a new process would make) that calls deploy once, then answers.
  RunOutcome deploy_once(const testing::TempDir& ws, std::shared_ptr<Approver> approver, const std::string& target,
                         AgentOptions* custom = nullptr) {
    llm_.push_call("deploy", nlohmann::json{{"target", target}}.dump());
    llm_.push_text("done");
    Agent agent(llm_, tools_, custom != nullptr ? *custom : options(ws));
    agent.set_approver(std::move(approver));
    auto out = agent.run("deploy " + target);
    EXPECT_TRUE(out.ok()) << out.status().to_string();
    return out.ok() ? *out : RunOutcome{};
  }
  // The content of the last tool message the model saw.
  std::string last_tool_message() {
    auto reqs = llm_.requests();
    for (auto it = reqs.back().messages.rbegin(); it != reqs.back().messages.rend(); ++it) {
      if (it->role == Role::kTool) return it->content;
    }
    return {};
  }

  testing::TempDir home_, ws_, other_ws_;
  std::unique_ptr<Store> store_;
  ToolRegistry tools_;
  std::atomic<int> deploys_{0}, lookups_{0};
  FakeLlm llm_;
};

TEST_F(AgentApprovalsTest, AlwaysAllowInOneRunDecidesTheNextWithoutAskingInThatWorkspaceOnly) {
  auto first = std::make_shared<ScriptedApprover>();
  first->verdict = ApprovalVerdict::kAllowAlways;
  ASSERT_TRUE(deploy_once(ws_, first, "staging").ok);
  EXPECT_EQ(first->asked, 1);

  auto second = std::make_shared<ScriptedApprover>();
  second->verdict = ApprovalVerdict::kDeny;  // would refuse, if it were asked
  ASSERT_TRUE(deploy_once(ws_, second, "prod").ok);
  EXPECT_EQ(second->asked, 0);
  EXPECT_EQ(deploys_.load(), 2);

  auto elsewhere = std::make_shared<ScriptedApprover>();
  elsewhere->verdict = ApprovalVerdict::kDeny;
  ASSERT_TRUE(deploy_once(other_ws_, elsewhere, "prod").ok);
  EXPECT_EQ(elsewhere->asked, 1);  // another workspace is not affected
  EXPECT_EQ(deploys_.load(), 2);
}

TEST_F(AgentApprovalsTest, AlwaysDenyAppliesAtOnceAndInLaterRunsOfTheWorkspace) {
  auto approver = std::make_shared<ScriptedApprover>();
  approver->verdict = ApprovalVerdict::kDeny;
  llm_.push_call("deploy", R"({"target":"a"})");
  llm_.push_call("deploy", R"({"target":"b"})");
  llm_.push_text("gave up");
  {
    Agent agent(llm_, tools_, options(ws_));
    approver->never_through = &agent;
    agent.set_approver(approver);
    auto out = agent.run("deploy twice");
    ASSERT_TRUE(out.ok() && out->ok);
  }
  EXPECT_EQ(approver->asked, 1);  // the second call was refused by the remembered answer
  EXPECT_NE(last_tool_message().find("saved for this workspace"), std::string::npos) << last_tool_message();
  auto rules = store_->list_approval_rules(ws_.path().string());
  ASSERT_TRUE(rules.ok());
  ASSERT_EQ(rules->size(), 1u);
  EXPECT_EQ((*rules)[0].verdict, ApprovalVerdict::kDeny);

  auto later = std::make_shared<ScriptedApprover>();  // would allow, if it were asked
  auto seen = std::make_shared<Seen>();
  llm_.push_call("deploy", R"({"target":"c"})");
  llm_.push_text("refused again");
  {
    Agent agent(llm_, tools_, options(ws_));
    agent.set_approver(later);
    agent.add_hooks(seen);
    ASSERT_TRUE(agent.run("deploy c").ok());
  }
  EXPECT_EQ(later->asked, 0);
  EXPECT_EQ(deploys_.load(), 0);
  ASSERT_EQ(seen->decided.size(), 1u);  // the policy's own decision is reported
  EXPECT_EQ(seen->decided[0].verdict, ApprovalVerdict::kDeny);

  auto elsewhere = std::make_shared<ScriptedApprover>();
  ASSERT_TRUE(deploy_once(other_ws_, elsewhere, "x").ok);
  EXPECT_EQ(elsewhere->asked, 1);
  EXPECT_EQ(deploys_.load(), 1);
}

TEST_F(AgentApprovalsTest, RememberApprovalRejectsWhatCannotBeARule) {
  Agent agent(llm_, tools_, options(ws_));
  EXPECT_EQ(agent.remember_approval("deploy", "(", ApprovalVerdict::kDeny).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(agent.remember_approval("deploy", "", ApprovalVerdict::kAllowAlways).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(agent.remember_approval("", "", ApprovalVerdict::kAllow).code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(store_->list_approval_rules(ws_.path().string())->empty());
  ASSERT_TRUE(agent.remember_approval("deploy", "prod", ApprovalVerdict::kDeny).ok());
  auto rules = store_->list_approval_rules(ws_.path().string());
  ASSERT_EQ(rules->size(), 1u);
  EXPECT_EQ((*rules)[0].pattern, "prod");
}

TEST_F(AgentApprovalsTest, ThePolicyDecidesBeforeTheApproverAndItsDecisionsAreLogged) {
  AgentOptions o = options(ws_);
  o.approvals.tools["deploy"].allow_patterns = {R"("target":"staging")"};
  o.approvals.tools["deploy"].deny_patterns = {"prod"};
  o.approvals.tools["deploy"].source = "test policy";
  auto approver = std::make_shared<ScriptedApprover>();
  auto seen = std::make_shared<Seen>();
  llm_.push_call("deploy", R"({"target":"staging"})");
  llm_.push_call("deploy", R"({"target":"prod"})");
  llm_.push_call("deploy", R"({"target":"qa"})");
  llm_.push_text("done");
  Agent agent(llm_, tools_, o);
  agent.set_approver(approver);
  agent.add_hooks(seen);
  auto out = agent.run("deploy three");
  ASSERT_TRUE(out.ok() && out->ok);
  EXPECT_EQ(approver->asked, 1);  // only qa: no pattern matched, the risk asks
  EXPECT_EQ(deploys_.load(), 2);  // staging (allow pattern) and qa (approved)
  ASSERT_EQ(seen->decided.size(), 3u);
  EXPECT_EQ(seen->decided[0].verdict, ApprovalVerdict::kAllow);
  EXPECT_NE(seen->decided[0].reason.find("allow pattern"), std::string::npos);
  EXPECT_EQ(seen->decided[1].verdict, ApprovalVerdict::kDeny);
  EXPECT_NE(seen->decided[1].reason.find("deny pattern 'prod'"), std::string::npos);
  auto log = store_->list_approvals(ApprovalFilter{});
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->size(), 3u);  // the audit log has the policy's decisions and the approver's
}

TEST_F(AgentApprovalsTest, AnInvalidPolicyPatternStopsTheRunBeforeItStarts) {
  AgentOptions o = options(ws_);
  o.approvals.tools["deploy"].deny_patterns = {"[unclosed"};
  Agent agent(llm_, tools_, o);
  auto out = agent.run("deploy");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("[unclosed"), std::string::npos);
  EXPECT_TRUE(llm_.requests().empty());
}

TEST_F(AgentApprovalsTest, AGateInTheConfigReplacesThePolicy) {
  struct AllowAll : ApprovalGate {
    GateVerdict check(const ToolCall&, std::string_view, const ToolSpec&) const override { return GateVerdict::allow(); }
  };
  AgentOptions o = options(ws_);
  o.config.approval_gate = std::make_shared<AllowAll>();
  o.approvals.default_mode = ApprovalMode::kDeny;
  auto approver = std::make_shared<ScriptedApprover>();
  ASSERT_TRUE(deploy_once(ws_, approver, "x", &o).ok);
  EXPECT_EQ(approver->asked, 0);
  EXPECT_EQ(deploys_.load(), 1);
}

TEST_F(AgentApprovalsTest, ACacheHitIsMarkedOnTheResultAndInTheStoredMessage) {
  auto seen = std::make_shared<Seen>();
  for (int i = 0; i < 2; ++i) {
    llm_.push_call("lookup", R"({"key":"k"})");
    llm_.push_text("found");
    Agent agent(llm_, tools_, options(ws_));
    agent.add_hooks(seen);
    auto out = agent.run("look k up");
    ASSERT_TRUE(out.ok() && out->ok);
    if (i == 1) {
      auto msgs = store_->load_messages(out->session_id);
      ASSERT_TRUE(msgs.ok());
      bool marked = false;
      for (const auto& m : *msgs) marked |= m.message.role == Role::kTool && m.message.metadata.count("cached") == 1;
      EXPECT_TRUE(marked);
    }
  }
  EXPECT_EQ(lookups_.load(), 1);
  ASSERT_EQ(seen->results.size(), 2u);
  EXPECT_FALSE(seen->results[0].cached);
  EXPECT_TRUE(seen->results[1].cached);
  EXPECT_EQ(seen->results[1].content, "value of k");
  EXPECT_EQ(seen->results[1].duration_ms, 0);
}

}  // namespace
}  // namespace keel
