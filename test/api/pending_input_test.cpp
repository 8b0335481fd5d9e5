#include "api/pending_input.hpp"

#include <gtest/gtest.h>

namespace keel::testing {
namespace {

ApprovalRequest approval_request(std::string call_id) {
  ApprovalRequest r;
  r.call = {std::move(call_id), "shell", R"({"command":"ls"})"};
  r.risk = Risk::kHigh;
  r.reason = "high risk";
  return r;
}

TEST(PendingInput, DecisionsAreGivenOnceEveryRequestIsDecided) {
  std::vector<std::string> ready;
  api::PendingInput p([&](const std::string& run) { ready.push_back(run); });
  std::vector<ApprovalRequest> batch = {approval_request("a"), approval_request("b")};
  EXPECT_FALSE(p.take_decisions("r_1", "s_1", batch));
  ASSERT_EQ(p.approvals().size(), 2u);
  EXPECT_EQ(p.approvals()[0].id, "r_1:a");
  EXPECT_TRUE(p.waiting("r_1"));
  ASSERT_TRUE(p.decide("r_1:a", ApprovalVerdict::kAllow, "ok").ok());
  EXPECT_TRUE(ready.empty());  // b is still open
  EXPECT_EQ(p.decide("r_1:a", ApprovalVerdict::kDeny, "no").code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(p.decide("r_1:zzz", ApprovalVerdict::kDeny, "no").code(), ErrorCode::kNotFound);
  ASSERT_TRUE(p.decide("r_1:b", ApprovalVerdict::kDeny, "no").ok());
  EXPECT_EQ(ready, std::vector<std::string>{"r_1"});
  EXPECT_FALSE(p.waiting("r_1"));
  auto decisions = p.take_decisions("r_1", "s_1", batch);
  ASSERT_TRUE(decisions);
  ASSERT_EQ(decisions->size(), 2u);
  EXPECT_EQ((*decisions)[0].call_id, "a");
  EXPECT_EQ((*decisions)[0].verdict, ApprovalVerdict::kAllow);
  EXPECT_EQ((*decisions)[1].verdict, ApprovalVerdict::kDeny);
  EXPECT_EQ((*decisions)[1].reason, "no");
  EXPECT_TRUE(p.approvals().empty());
  EXPECT_FALSE(p.take_decisions("r_1", "s_1", batch));  // consumed: asked again
}

TEST(PendingInput, AnswersAreCheckedAgainstTheQuestion) {
  std::vector<std::string> ready;
  api::PendingInput p([&](const std::string& run) { ready.push_back(run); });
  UserQuestion q;
  q.question = "Which?";
  q.options = {"a", "b"};
  q.allow_free_text = false;
  q.run_id = "r_2";
  q.call_id = "q";
  EXPECT_FALSE(p.take_answer(q));
  ASSERT_EQ(p.questions().size(), 1u);
  UserAnswer bad_index;
  bad_index.option_index = 5;
  EXPECT_EQ(p.answer("r_2:q", bad_index).code(), ErrorCode::kInvalidArgument);
  UserAnswer free_text;
  free_text.text = "c";
  EXPECT_EQ(p.answer("r_2:q", free_text).code(), ErrorCode::kInvalidArgument);
  UserAnswer pick;
  pick.option_index = 1;
  ASSERT_TRUE(p.answer("r_2:q", pick).ok());
  EXPECT_EQ(ready, std::vector<std::string>{"r_2"});
  auto got = p.take_answer(q);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->text, "b");
  EXPECT_EQ(got->option_index, 1u);
  EXPECT_TRUE(p.questions().empty());
}

TEST(PendingInput, ForgetDropsARunsItems) {
  api::PendingInput p;
  EXPECT_FALSE(p.take_decisions("r_3", "s", {approval_request("x")}));
  p.forget_run("r_3");
  EXPECT_TRUE(p.approvals().empty());
  EXPECT_EQ(p.decide("r_3:x", ApprovalVerdict::kAllow, "").code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace keel::testing
