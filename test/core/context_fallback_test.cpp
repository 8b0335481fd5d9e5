#include <gtest/gtest.h>

#include "context_test_util.hpp"
#include "keel/core/context_manager.hpp"

namespace keel {
namespace {

using namespace testing_ctx;

ContextPolicy no_summary(size_t window) {
  ContextPolicy p;
  p.context_window = window;
  p.threshold = 1.0;
  p.recency_rounds = 2;
  p.summary_cooldown_rounds = 1000;
  return p;
}

// sys, task, then rounds 1..n of one result each, a plain exchange after round 2.
std::vector<Message> mixed_history(int rounds, size_t result_bytes) {
  std::vector<Message> h = start();
  for (int r = 1; r <= rounds; ++r) {
    add_round(h, r, {lines(result_bytes, "r" + std::to_string(r))});
    if (r == 2) {
      h.push_back(Message::assistant("a plain remark"));
      h.push_back(Message::user("a follow-up from the user"));
    }
  }
  return h;
}

// The summary stage is put on cooldown by one failed attempt, so the tail fallback decides alone.
CompactionReport run_fallback(ContextManager& cm, std::vector<Message>& h, int round) {
  CompactionStep step = cm.compact(h, {}, round);
  return step.summary_needed() ? cm.summary_failed(h, "no model", round) : step.report;
}

// Tokens of `h` once microcompact has run (what the later stages start from).
size_t after_microcompact(const std::vector<Message>& h) {
  ContextManager probe(no_summary(1'000'000'000), bytes());
  std::vector<Message> copy = h;
  return probe.compact(copy, {}, 0).report.tokens_after;
}

TEST(ContextFallbackTest, DropsTheOldestToolBlocksWhole) {
  std::vector<Message> h = mixed_history(6, 400);
  ContextManager cm(no_summary(after_microcompact(h) - 50), bytes());
  CompactionReport r = run_fallback(cm, h, 6);
  EXPECT_TRUE(valid_history(h));
  EXPECT_FALSE(r.still_over_limit);
  EXPECT_GE(r.tool_blocks_dropped, 1u);
  EXPECT_EQ(r.messages_dropped, 2 * r.tool_blocks_dropped);
  ASSERT_GE(h.size(), 3u);
  EXPECT_EQ(h[0].content, "SYS");
  EXPECT_EQ(h[1].content, "TASK");
  EXPECT_EQ(r.tool_blocks_dropped, 2u);
  // The oldest blocks went first; the plain exchange after round 2 stays (blocks go before plain
  // messages), then round 3 onwards.
  EXPECT_EQ(h[2].content, "a plain remark");
  EXPECT_EQ(h[4].tool_calls.at(0).id, "call_3_1");
}

TEST(ContextFallbackTest, ThenDropsOldPlainMessagesButNeverTheProtectedOnes) {
  std::vector<Message> h = mixed_history(4, 400);
  const Message last_call = h[h.size() - 2];
  const Message last_result = h.back();
  ByteCounter c;
  // Enough room for the system prompt, the task and the last round only.
  size_t must_keep =
      c.count_message(h[0]) + c.count_message(h[1]) + c.count_message(last_call) + c.count_message(last_result);
  ContextManager cm(no_summary(must_keep + 20), bytes());
  CompactionReport r = run_fallback(cm, h, 4);
  EXPECT_TRUE(valid_history(h));
  EXPECT_EQ(h[0].content, "SYS");
  EXPECT_EQ(h[1].content, "TASK");
  EXPECT_EQ(h[h.size() - 2].tool_calls.at(0).id, last_call.tool_calls.at(0).id);
  EXPECT_EQ(h.back().tool_call_id, last_result.tool_call_id);
  EXPECT_EQ(r.tool_blocks_dropped, 3u);
  EXPECT_EQ(r.messages_dropped, 8u);  // three blocks and the plain exchange
  EXPECT_EQ(h.size(), 4u);
  EXPECT_EQ(r.results_truncated, 0u);
  EXPECT_FALSE(r.still_over_limit);
  EXPECT_EQ(r.note,
            "Context compacted: 2 old tool results digested, 3 tool blocks dropped, 2 older messages dropped; "
            "re-read anything you need.");
}

TEST(ContextFallbackTest, AnEarlierSummaryIsTheLastPlainMessageToGo) {
  std::vector<Message> h = start();
  Message summary = Message::user("[Summary of earlier conversation]\nkeep me");
  summary.metadata["kind"] = "summary";
  h.push_back(summary);
  h.push_back(Message::assistant(std::string(100, 'p')));
  h.push_back(Message::user(std::string(100, 'q')));
  add_round(h, 1, {"x"});
  ByteCounter c;
  // Room for everything but the two plain messages.
  ContextManager cm(no_summary(total_tokens(c, h) - 150), bytes());
  CompactionReport r = run_fallback(cm, h, 1);
  EXPECT_EQ(r.messages_dropped, 2u);
  ASSERT_EQ(h.size(), 5u);
  EXPECT_EQ(h[2].content, summary.content);
  EXPECT_TRUE(valid_history(h));
}

TEST(ContextFallbackTest, WhatIsLeftOfEarlierTurnsStartsWithTheUser) {
  // An earlier run's question and answer, another exchange, then this run's task and round.
  std::vector<Message> h = {Message::system("SYS"),
                            Message::user(std::string(100, 'q')),
                            Message::assistant(std::string(100, 'a')),
                            Message::user(std::string(100, 'r')),
                            Message::assistant(std::string(100, 'b')),
                            task("TASK")};
  add_round(h, 1, {"x"});
  ByteCounter c;
  // Room for all but the first question: dropping it alone would leave its answer first.
  ContextManager cm(no_summary(total_tokens(c, h) - 50), bytes());
  CompactionReport r = run_fallback(cm, h, 1);
  ASSERT_TRUE(valid_history(h));
  EXPECT_EQ(r.messages_dropped, 2u) << "the orphaned answer goes with its question";
  ASSERT_GE(h.size(), 3u);
  EXPECT_EQ(h[1].role, Role::kUser);
  EXPECT_EQ(h[1].content, std::string(100, 'r'));
  EXPECT_EQ(h[3].content, "TASK");
}

TEST(ContextFallbackTest, NeverOrphansAToolMessageWhateverTheLimit) {
  std::vector<Message> tmpl = start();
  for (int r = 1; r <= 8; ++r) {
    add_round(tmpl, r, std::vector<std::string>(static_cast<size_t>(1 + r % 3), lines(100 + 37 * r)));
  }
  ByteCounter c;
  size_t full = total_tokens(c, tmpl);
  for (size_t window = 20; window < full + 50; window += 97) {
    std::vector<Message> h = tmpl;
    ContextManager cm(no_summary(window), bytes());
    CompactionReport r = run_fallback(cm, h, 8);
    EXPECT_TRUE(valid_history(h)) << "window " << window;
    EXPECT_EQ(h[0].content, "SYS");
    EXPECT_EQ(h[1].content, "TASK");
    EXPECT_EQ(h.back().tool_call_id, tmpl.back().tool_call_id);
    EXPECT_EQ(r.tokens_after, total_tokens(c, h));
    EXPECT_EQ(r.still_over_limit, r.tokens_after > window) << "window " << window;
  }
}

TEST(ContextFallbackTest, AHistoryThatCannotFitStaysValidAndSaysSo) {
  std::vector<Message> h = start("SYS", std::string(5000, 't'));  // the task alone is over the limit
  add_round(h, 1, {lines(300)});
  add_round(h, 2, {lines(300)});
  add_round(h, 3, {lines(300)});
  ContextManager cm(no_summary(1000), bytes());
  CompactionReport r = run_fallback(cm, h, 3);
  EXPECT_TRUE(r.still_over_limit);
  EXPECT_GT(r.tokens_after, r.limit);
  EXPECT_TRUE(valid_history(h));
  ASSERT_EQ(h.size(), 4u);  // system, task, last round
  EXPECT_EQ(h[1].content.size(), 5000u);
  EXPECT_EQ(h[2].tool_calls.at(0).id, "call_3_1");
  EXPECT_EQ(r.tool_blocks_dropped, 2u);
}

TEST(ContextFallbackTest, AnUnknownWindowCompactsNothing) {
  std::vector<Message> h = mixed_history(10, 3000);
  std::vector<Message> before = h;
  ContextManager cm(ContextPolicy{}, bytes());  // context_window 0
  CompactionStep step = cm.compact(h, {}, 10);
  EXPECT_FALSE(step.summary_needed());
  EXPECT_TRUE(step.report.stages.empty());
  EXPECT_TRUE(step.report.note.empty());
  EXPECT_FALSE(step.report.still_over_limit);
  EXPECT_EQ(step.report.limit, 0u);
  ByteCounter c;
  EXPECT_EQ(step.report.tokens_before, total_tokens(c, before));
  EXPECT_EQ(step.report.tokens_after, step.report.tokens_before);
  ASSERT_EQ(h.size(), before.size());
  for (size_t i = 0; i < h.size(); ++i) EXPECT_EQ(h[i].content, before[i].content);
}

TEST(ContextFallbackTest, ToolDefinitionsCountTowardsTheLimit) {
  std::vector<Message> h = mixed_history(3, 200);
  ByteCounter c;
  size_t messages = total_tokens(c, h);
  ToolSpec big;
  big.name = "big";
  big.description = std::string(300, 'd');
  std::vector<ToolSpec> tools = {big};
  ContextPolicy p = no_summary(messages + 100);
  p.microcompact_always = false;
  ContextManager cm(p, bytes());
  CompactionStep step = cm.compact(h, tools, 3);
  EXPECT_EQ(step.report.tokens_before, messages + c.count_tool(big));
  EXPECT_GT(step.report.messages_digested, 0u);
  EXPECT_LE(step.report.tokens_after, messages + 100);
}

}  // namespace
}  // namespace keel
