#include "api/pending_input.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <stop_token>
#include <thread>

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

// A waiting run (not parked) blocks until a person decides, then gets the decisions once.
TEST(PendingInput, AWaitingRunGetsTheDecisionsOnceTheyAreGiven) {
  api::PendingInput p;
  std::vector<ApprovalRequest> batch = {approval_request("a"), approval_request("b")};
  std::stop_source stop;
  auto waited = std::async(std::launch::async, [&] {
    return p.wait_decisions("r_w", "s_w", batch, stop.get_token(), std::chrono::seconds(20));
  });
  for (int i = 0; i < 1000 && p.approvals().size() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(p.approvals().size(), 2u);
  ASSERT_TRUE(p.decide("r_w:b", ApprovalVerdict::kDeny, "not b").ok());
  EXPECT_EQ(waited.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout) << "a is still open";
  ASSERT_TRUE(p.decide("r_w:a", ApprovalVerdict::kAllow, "fine").ok());
  std::optional<std::vector<ApprovalDecision>> got = waited.get();
  ASSERT_TRUE(got);
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0].call_id, "a");
  EXPECT_EQ((*got)[0].verdict, ApprovalVerdict::kAllow);
  EXPECT_EQ((*got)[1].reason, "not b");
  EXPECT_TRUE(p.approvals().empty());
}

TEST(PendingInput, AWaitThatTimesOutOrIsStoppedDropsTheRunsItems) {
  api::PendingInput p;
  std::vector<ApprovalRequest> batch = {approval_request("a")};
  EXPECT_FALSE(p.wait_decisions("r_t", "s", batch, {}, std::chrono::milliseconds(50)));
  EXPECT_TRUE(p.approvals().empty());
  EXPECT_EQ(p.decide("r_t:a", ApprovalVerdict::kAllow, "late").code(), ErrorCode::kNotFound);

  std::stop_source stop;
  auto waited = std::async(std::launch::async, [&] {
    return p.wait_decisions("r_s", "s", batch, stop.get_token(), std::chrono::seconds(20));
  });
  for (int i = 0; i < 1000 && p.approvals().empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(p.approvals().size(), 1u);
  stop.request_stop();
  ASSERT_EQ(waited.wait_for(std::chrono::seconds(5)), std::future_status::ready) << "a stop ends the wait";
  EXPECT_FALSE(waited.get());
  EXPECT_TRUE(p.approvals().empty());
}

}  // namespace
}  // namespace keel::testing
