#include <gtest/gtest.h>

#include "context_test_util.hpp"
#include "core/guards/result_budget.hpp"
#include "keel/core/context_manager.hpp"

namespace keel {
namespace {

using detail::apply_result_budget;
using namespace testing_ctx;

const std::string kNote101 = "[result truncated — original size: 101 chars]";

TEST(ContextBudgetTest, ExactlyAtTheBudgetIsKeptOneOverIsCut) {
  std::string at(100, 'x');
  EXPECT_FALSE(apply_result_budget(at, 100));
  EXPECT_EQ(at, std::string(100, 'x'));

  std::string over(101, 'x');
  EXPECT_TRUE(apply_result_budget(over, 100));
  EXPECT_EQ(over, std::string(100, 'x') + "\n" + kNote101);

  std::string unlimited(10000, 'x');
  EXPECT_FALSE(apply_result_budget(unlimited, 0));
  EXPECT_EQ(unlimited.size(), 10000u);
}

TEST(ContextBudgetTest, CutsAtALineBoundaryFirst) {
  std::string s;
  for (int i = 0; i < 20; ++i) s += std::string(9, static_cast<char>('a' + i)) + "\n";  // 200 bytes
  ASSERT_TRUE(apply_result_budget(s, 95));
  std::string kept = s.substr(0, s.find("[result truncated"));
  EXPECT_EQ(kept.size(), 90u);  // nine whole lines
  EXPECT_EQ(kept.back(), '\n');
  EXPECT_EQ(kept.substr(80), "iiiiiiiii\n");
  EXPECT_NE(s.find("original size: 200 chars]"), std::string::npos);
}

TEST(ContextBudgetTest, CutsAtASentenceEndWithoutLineBreaks) {
  std::string s = "The first sentence is here. The second sentence follows it. And then a third one goes on and on";
  ASSERT_TRUE(apply_result_budget(s, 70));
  EXPECT_EQ(s.substr(0, s.find('\n')), "The first sentence is here. The second sentence follows it.");
}

TEST(ContextBudgetTest, ThePolicyBudgetCutsEachResultOnce) {
  ContextPolicy p;  // context_window 0: the budget still applies
  p.result_char_budget = 100;
  ContextManager cm(p, bytes());
  std::vector<Message> h = start();
  add_round(h, 1, {lines(300), lines(100)});
  Message already = result("call_x", "fs_read", std::string(150, 'y'));
  already.metadata["truncated"] = "true";  // cut by AgentMachine with its own budget
  h.push_back(already);
  h.insert(h.end() - 1, Message::assistant("", {{"call_x", "fs_read", "{}"}}));
  CompactionStep step = cm.compact(h, {}, 1);
  EXPECT_EQ(step.report.results_truncated, 1u);
  EXPECT_EQ(step.report.stages, std::vector<CompactionStage>{CompactionStage::kResultBudget});
  EXPECT_EQ(step.report.limit, 0u);
  EXPECT_NE(h[3].content.find("original size: 300 chars"), std::string::npos);
  EXPECT_EQ(h[3].metadata.at("truncated"), "true");
  EXPECT_EQ(h[4].content.size(), 100u);
  EXPECT_EQ(h[6].content, std::string(150, 'y'));
  std::string cut = h[3].content;
  CompactionStep again = cm.compact(h, {}, 2);
  EXPECT_EQ(again.report.results_truncated, 0u);
  EXPECT_EQ(h[3].content, cut);
}

TEST(ContextBudgetTest, AsALastResortTheLargestResultOfTheLastRoundIsCut) {
  ContextPolicy p;
  p.threshold = 1.0;
  p.context_window = 3000;
  ContextManager cm(p, bytes());
  std::vector<Message> h = start();
  add_round(h, 1, {lines(200, "small"), lines(8000, "huge")});
  CompactionStep step = cm.compact(h, {}, 1);
  ASSERT_FALSE(step.summary_needed());
  const CompactionReport& r = step.report;
  EXPECT_EQ(r.results_truncated, 1u);
  EXPECT_EQ(h[3].content, lines(200, "small"));
  EXPECT_NE(h[4].content.find("original size: 8000 chars]"), std::string::npos);
  EXPECT_EQ(h[4].content.rfind("huge\n", 0), 0u);
  EXPECT_FALSE(r.still_over_limit);
  EXPECT_LE(r.tokens_after, 3000u);
  EXPECT_GT(r.tokens_after, 2500u);  // cut to fit, not to nothing
  EXPECT_EQ(r.note, "Context compacted: 1 tool result cut to fit; re-read anything you need.");
  EXPECT_TRUE(valid_history(h));
}

}  // namespace
}  // namespace keel
