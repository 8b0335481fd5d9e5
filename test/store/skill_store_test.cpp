// Skill settings and proposals in the SQLite store: partial updates keep stored fields, workspace
// scoping, proposal state moves and their refusals, bad JSON refused, persistence on reopening.
#include "store_test_util.hpp"

namespace keel::testing {
namespace {

class SkillStoreTest : public StoreTest {
 protected:
  SkillProposal proposal(const std::string& skill, const std::string& ws = "/ws") {
    SkillProposal p;
    p.workspace = ws;
    p.skill = skill;
    p.run_id = "sg_1";
    p.tool = "fs_write";
    p.arguments = R"({"path":"a.txt","content":"hi"})";
    p.output = R"({"draft":"hi"})";
    p.summary = "write a.txt";
    return p;
  }
};

TEST_P(SkillStoreTest, SettingsUpdateOnlyTheGivenFields) {
  SkillSetting s;
  s.workspace = "/ws";
  s.skill = "gas";
  s.enabled = false;
  KEEL_ASSERT_OK(store_->set_skill_setting(s));
  SkillSetting run;
  run.workspace = "/ws";
  run.skill = "gas";
  run.auto_run = true;
  KEEL_ASSERT_OK(store_->set_skill_setting(run));
  auto list = store_->list_skill_settings("/ws");
  ASSERT_TRUE(list.ok()) << list.status().to_string();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].skill, "gas");
  EXPECT_EQ((*list)[0].enabled, std::optional<bool>(false));
  EXPECT_EQ((*list)[0].auto_run, std::optional<bool>(true));
  EXPECT_TRUE(store_->list_skill_settings("/other")->empty());
}

TEST_P(SkillStoreTest, SettingWithoutASkillNameIsRefused) {
  SkillSetting s;
  s.workspace = "/ws";
  s.enabled = true;
  auto status = store_->set_skill_setting(s);
  EXPECT_EQ(status.code(), ErrorCode::kInvalidArgument);
}

TEST_P(SkillStoreTest, ProposalsListNewestFirstAndFilterByStatus) {
  auto a = store_->add_skill_proposal(proposal("first"));
  auto b = store_->add_skill_proposal(proposal("second"));
  auto c = store_->add_skill_proposal(proposal("elsewhere", "/other"));
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  KEEL_ASSERT_OK(store_->decide_skill_proposal(*a, ProposalStatus::kRejected, "not now"));
  auto all = store_->list_skill_proposals("/ws", std::nullopt);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].skill, "second");
  EXPECT_EQ((*all)[1].skill, "first");
  EXPECT_EQ((*all)[1].status, ProposalStatus::kRejected);
  EXPECT_EQ((*all)[1].result, "not now");
  EXPECT_TRUE((*all)[1].decided_ms.has_value());
  auto pending = store_->list_skill_proposals("/ws", ProposalStatus::kPending);
  ASSERT_EQ(pending->size(), 1u);
  EXPECT_EQ((*pending)[0].id, *b);
  EXPECT_EQ((*pending)[0].arguments, R"({"path":"a.txt","content":"hi"})");
  EXPECT_FALSE((*pending)[0].decided_ms.has_value());
}

TEST_P(SkillStoreTest, DecisionsFollowTheAllowedMoves) {
  auto id = store_->add_skill_proposal(proposal("brief"));
  ASSERT_TRUE(id.ok());
  auto early = store_->decide_skill_proposal(*id, ProposalStatus::kExecuted, "ran");
  EXPECT_EQ(early.code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(early.message(), "skill proposal " + std::to_string(*id) + " is pending; it cannot become executed");
  KEEL_ASSERT_OK(store_->decide_skill_proposal(*id, ProposalStatus::kApproved, ""));
  KEEL_ASSERT_OK(store_->decide_skill_proposal(*id, ProposalStatus::kExecuted, "wrote 2 bytes"));
  auto again = store_->decide_skill_proposal(*id, ProposalStatus::kRejected, "");
  EXPECT_EQ(again.code(), ErrorCode::kFailedPrecondition);
  auto got = store_->get_skill_proposal(*id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->status, ProposalStatus::kExecuted);
  EXPECT_EQ(got->result, "wrote 2 bytes");
  EXPECT_EQ(store_->decide_skill_proposal(*id + 100, ProposalStatus::kApproved, "").code(), ErrorCode::kNotFound);
  EXPECT_EQ(store_->get_skill_proposal(*id + 100).status().code(), ErrorCode::kNotFound);
}

TEST_P(SkillStoreTest, ProposalWithArgumentsThatAreNotJsonIsRefusedAndNothingIsStored) {
  SkillProposal p = proposal("bad");
  p.arguments = "{not json";
  auto id = store_->add_skill_proposal(p);
  EXPECT_EQ(id.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(store_->list_skill_proposals("/ws", std::nullopt)->empty());
}

TEST_P(SkillStoreTest, ProposalsAndSettingsSurviveReopening) {
  auto id = store_->add_skill_proposal(proposal("kept"));
  ASSERT_TRUE(id.ok());
  SkillSetting s;
  s.workspace = "/ws";
  s.skill = "kept";
  s.auto_run = true;
  KEEL_ASSERT_OK(store_->set_skill_setting(s));
  reopen();
  auto got = store_->get_skill_proposal(*id);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(got->summary, "write a.txt");
  EXPECT_EQ(got->output, R"({"draft":"hi"})");
  auto settings = store_->list_skill_settings("/ws");
  ASSERT_EQ(settings->size(), 1u);
  EXPECT_EQ((*settings)[0].auto_run, std::optional<bool>(true));
  EXPECT_FALSE((*settings)[0].enabled.has_value());
}

KEEL_STORE_ENGINES(SkillStoreTest);

}  // namespace
}  // namespace keel::testing
