// Approval modes of a skill's action: advisory (reported only), proposal (queued in the store),
// auto-run-eligible (queued unless the workspace turned auto-run on; then run under the approval
// policy: allowed, asked about → queued, denied → failed), and approving a queued proposal.
#include <gtest/gtest.h>

#include <mutex>
#include <nlohmann/json.hpp>

#include "keel/skill_runner.hpp"
#include "keel/store/sqlite_store.hpp"
#include "keel/tool.hpp"
#include "skills/skill_test_support.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::RuleModel;
using testing::SkillRequest;
using testing::text_reply;

constexpr const char* kReply = R"({"summary": "publish the draft", "call": {"path": "draft.md", "mode": "publish"}})";

class SkillActionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions so;
    so.path = ":memory:";
    auto store = open_sqlite_store(so);
    ASSERT_TRUE(store.ok()) << store.status().to_string();
    store_ = std::move(store).value();
    add_tool("publish", Risk::kLow);
    add_tool("wipe", Risk::kHigh);
  }

  void add_tool(const std::string& name, Risk risk) {
    ToolTraits t;
    t.risk = risk;
    ToolSpec spec =
        make_tool_spec(name, "test tool", R"({"type":"object","properties":{"path":{"type":"string"}}})", t);
    ASSERT_TRUE(tools_
                    .add(make_tool(spec,
                                   [this, name](const json& args, const ToolContext&) -> Result<std::string> {
                                     std::lock_guard l(mu_);
                                     calls_.push_back(name + " " + args.dump());
                                     return std::string("done: ") + args.value("path", "?");
                                   }))
                    .ok());
  }

  ExecutableSkill skill(SkillApprovalMode mode, const std::string& tool = "publish") {
    ExecutableSkill s;
    s.manifest.id = "publisher";
    s.manifest.output_schema = R"({"type":"object","required":["summary"]})";
    s.manifest.approval_mode = mode;
    SkillAction a;
    a.tool = tool;
    a.arguments_pointer = "/call";
    s.manifest.action = a;
    s.instructions = "Decide what to publish.";
    return s;
  }

  SkillOutcome run(ExecutableSkill s, bool with_store = true, ApprovalPolicy policy = {}) {
    SkillRunnerOptions o;
    o.store = with_store ? store_.get() : nullptr;
    o.workspace = ws_.path().string();
    o.tools = &tools_;
    o.approvals = std::move(policy);
    auto runner = SkillRunner::create({std::move(s)}, model_, std::move(o));
    EXPECT_TRUE(runner.ok()) << runner.status().to_string();
    if (!runner.ok()) return {};
    SkillRunRequest req;
    req.ids = {"publisher"};
    auto r = (*runner)->run(req, json::object());
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    if (!r.ok()) return {};
    last_ok_ = r->ok();
    last_run_id_ = r->run_id;
    return r->skills.at(0);
  }

  void set_auto_run(bool on) {
    SkillSetting s;
    s.workspace = ws_.path().string();
    s.skill = "publisher";
    s.auto_run = on;
    ASSERT_TRUE(store_->set_skill_setting(s).ok());
  }

  std::vector<SkillProposal> proposals() {
    auto list = store_->list_skill_proposals(ws_.path().string(), std::nullopt);
    EXPECT_TRUE(list.ok());
    return list.ok() ? *list : std::vector<SkillProposal>{};
  }

  std::vector<std::string> calls() {
    std::lock_guard l(mu_);
    return calls_;
  }

  testing::TempDir ws_;
  std::unique_ptr<Store> store_;
  ToolRegistry tools_;
  RuleModel model_{[](const SkillRequest&, const CallOptions&) { return text_reply(kReply); }};
  std::mutex mu_;
  std::vector<std::string> calls_;
  bool last_ok_ = false;
  std::string last_run_id_;
};

TEST_F(SkillActionsTest, AdvisoryReportsTheActionAndNeverRunsOrQueuesIt) {
  SkillOutcome o = run(skill(SkillApprovalMode::kAdvisory));
  EXPECT_EQ(o.status, SkillStatus::kSucceeded);
  EXPECT_EQ(o.action.state, SkillActionState::kAdvice);
  EXPECT_EQ(o.action.tool, "publish");
  EXPECT_EQ(o.action.arguments, R"({"mode":"publish","path":"draft.md"})");
  EXPECT_TRUE(calls().empty());
  EXPECT_TRUE(proposals().empty());
  EXPECT_TRUE(last_ok_);
}

TEST_F(SkillActionsTest, ProposalQueuesAPendingProposalWithArgumentsOutputAndSummary) {
  SkillOutcome o = run(skill(SkillApprovalMode::kProposal));
  ASSERT_EQ(o.action.state, SkillActionState::kQueued) << o.action.detail;
  std::vector<SkillProposal> list = proposals();
  ASSERT_EQ(list.size(), 1u);
  const SkillProposal& p = list[0];
  EXPECT_EQ(p.id, o.action.proposal_id);
  EXPECT_EQ(p.status, ProposalStatus::kPending);
  EXPECT_EQ(p.skill, "publisher");
  EXPECT_EQ(p.workspace, ws_.path().string());
  EXPECT_EQ(p.run_id, last_run_id_);
  EXPECT_EQ(p.tool, "publish");
  EXPECT_EQ(json::parse(p.arguments), json({{"path", "draft.md"}, {"mode", "publish"}}));
  EXPECT_EQ(json::parse(p.output), json::parse(kReply));
  EXPECT_EQ(p.summary, "publish the draft");
  EXPECT_EQ(o.action.detail, "queued as proposal " + std::to_string(p.id) + " [" + p.public_id +
                                 "] (the skill's approval mode is proposal); see keel skills proposals");
  EXPECT_EQ(p.public_id.rfind("sp_", 0), 0u) << p.public_id;
  EXPECT_TRUE(calls().empty());
}

TEST_F(SkillActionsTest, WithoutAStoreAProposalIsReportedAsNotQueued) {
  SkillOutcome o = run(skill(SkillApprovalMode::kProposal), /*with_store=*/false);
  EXPECT_EQ(o.action.state, SkillActionState::kNotQueued);
  EXPECT_EQ(o.action.detail,
            "not queued: there is no database to keep proposals in (the skill's approval mode is proposal)");
}

TEST_F(SkillActionsTest, AutoRunEligibleWithAutoRunOffIsQueued) {
  set_auto_run(false);
  SkillOutcome o = run(skill(SkillApprovalMode::kAutoRunEligible));
  EXPECT_EQ(o.action.state, SkillActionState::kQueued);
  EXPECT_NE(o.action.detail.find("auto-run is off for publisher in this workspace; turn it on with keel skills "
                                 "autorun publisher on"),
            std::string::npos)
      << o.action.detail;
  EXPECT_EQ(proposals().size(), 1u);
  EXPECT_TRUE(calls().empty());
}

TEST_F(SkillActionsTest, AutoRunOnRunsTheToolNowAndLogsTheApproval) {
  set_auto_run(true);
  SkillOutcome o = run(skill(SkillApprovalMode::kAutoRunEligible));
  EXPECT_EQ(o.action.state, SkillActionState::kExecuted) << o.action.detail;
  EXPECT_EQ(o.action.detail, "done: draft.md");
  EXPECT_EQ(calls(), (std::vector<std::string>{R"(publish {"mode":"publish","path":"draft.md"})"}));
  EXPECT_TRUE(proposals().empty());
  ApprovalFilter f;
  auto approvals = store_->list_approvals(f);
  ASSERT_TRUE(approvals.ok());
  ASSERT_EQ(approvals->size(), 1u);
  EXPECT_EQ((*approvals)[0].tool, "publish");
  EXPECT_EQ((*approvals)[0].verdict, ApprovalVerdict::kAllow);
  EXPECT_EQ((*approvals)[0].reason, "auto-run of skill publisher");
  EXPECT_TRUE(last_ok_);
}

TEST_F(SkillActionsTest, AutoRunOnIsStillSubjectToThePolicysDenyPatterns) {
  set_auto_run(true);
  ApprovalPolicy policy;
  ToolApprovalPolicy p;
  p.deny_patterns = {"draft"};
  p.source = "/ws/keel.yaml";
  policy.tools["publish"] = p;
  SkillOutcome o = run(skill(SkillApprovalMode::kAutoRunEligible), true, policy);
  EXPECT_EQ(o.status, SkillStatus::kSucceeded);
  EXPECT_EQ(o.action.state, SkillActionState::kFailed);
  EXPECT_EQ(o.action.detail.rfind("refused by the approval policy: ", 0), 0u) << o.action.detail;
  EXPECT_NE(o.action.detail.find("draft"), std::string::npos) << o.action.detail;
  EXPECT_TRUE(calls().empty());
  EXPECT_FALSE(last_ok_);
}

TEST_F(SkillActionsTest, AutoRunOnACallThePolicyWouldAskAboutIsQueuedInstead) {
  set_auto_run(true);
  SkillOutcome o = run(skill(SkillApprovalMode::kAutoRunEligible, "wipe"));
  EXPECT_EQ(o.action.state, SkillActionState::kQueued) << o.action.detail;
  EXPECT_NE(o.action.detail.find("the approval policy asks before wipe runs"), std::string::npos) << o.action.detail;
  EXPECT_TRUE(calls().empty());
  ASSERT_EQ(proposals().size(), 1u);
  EXPECT_EQ(proposals()[0].tool, "wipe");
}

TEST_F(SkillActionsTest, AnOutputWithoutTheArgumentsObjectFailsTheAction) {
  ExecutableSkill s = skill(SkillApprovalMode::kProposal);
  s.manifest.action->arguments_pointer = "/missing";
  SkillOutcome o = run(s);
  EXPECT_EQ(o.action.state, SkillActionState::kFailed);
  EXPECT_EQ(o.action.detail,
            "the output has no JSON object at '/missing' for the arguments of publish (the action's argumentsPointer)");
  EXPECT_TRUE(proposals().empty());
}

TEST_F(SkillActionsTest, ApprovingAProposalRunsItsToolAndRecordsTheResult) {
  SkillOutcome o = run(skill(SkillApprovalMode::kProposal, "wipe"));  // high risk: a person's approval answers
  ASSERT_EQ(o.action.state, SkillActionState::kQueued);
  Result<SkillProposal> done = approve_skill_proposal(*store_, o.action.proposal_id, tools_, {});
  ASSERT_TRUE(done.ok()) << done.status().to_string();
  EXPECT_EQ(done->status, ProposalStatus::kExecuted);
  EXPECT_EQ(done->result, "done: draft.md");
  EXPECT_TRUE(done->decided_ms.has_value());
  EXPECT_EQ(calls(), (std::vector<std::string>{R"(wipe {"mode":"publish","path":"draft.md"})"}));
  Result<SkillProposal> again = approve_skill_proposal(*store_, o.action.proposal_id, tools_, {});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(again.status().message(),
            "skill proposal " + std::to_string(o.action.proposal_id) + " is executed, not pending");
  Result<SkillProposal> unknown = approve_skill_proposal(*store_, 999, tools_, {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), ErrorCode::kNotFound);
}

TEST_F(SkillActionsTest, ASavedDenyRuleStillRefusesAnApprovedProposal) {
  SkillOutcome o = run(skill(SkillApprovalMode::kProposal));
  ASSERT_EQ(o.action.state, SkillActionState::kQueued);
  ApprovalRule rule;
  rule.workspace = ws_.path().string();
  rule.tool = "publish";
  rule.verdict = ApprovalVerdict::kDeny;
  ASSERT_TRUE(store_->add_approval_rule(rule).ok());
  Result<SkillProposal> done = approve_skill_proposal(*store_, o.action.proposal_id, tools_, {});
  ASSERT_TRUE(done.ok()) << done.status().to_string();
  EXPECT_EQ(done->status, ProposalStatus::kFailed);
  EXPECT_EQ(done->result.rfind("refused by the approval policy: ", 0), 0u) << done->result;
  EXPECT_NE(done->result.find("a rule saved for this workspace"), std::string::npos) << done->result;
  EXPECT_TRUE(calls().empty());
}

}  // namespace
}  // namespace keel
