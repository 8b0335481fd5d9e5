#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "context_test_util.hpp"
#include "core/context/summary_cache.hpp"
#include "keel/core/context_manager.hpp"

namespace keel {
namespace {

using namespace testing_ctx;

// 14 rounds of 1000-byte results: after microcompact (2 recent rounds verbatim) the history is
// just over a limit set one token below its size, with 24 older messages to summarize.
std::vector<Message> long_history() {
  std::vector<Message> h = start();
  for (int r = 1; r <= 14; ++r) add_round(h, r, {lines(1000, "round " + std::to_string(r))});
  return h;
}

ContextPolicy base_policy() {
  ContextPolicy p;
  p.threshold = 1.0;
  p.recency_rounds = 2;
  p.summarize_prompt = "Summarize.";
  return p;
}

// The policy whose limit is one token below what `h` takes after microcompact.
ContextPolicy tight_policy(const std::vector<Message>& h, ContextPolicy p = base_policy()) {
  ContextPolicy roomy = p;
  roomy.context_window = 1'000'000'000;
  ContextManager probe(roomy, bytes());
  std::vector<Message> copy = h;
  p.context_window = probe.compact(copy, {}, 0).report.tokens_after - 1;
  return p;
}

TEST(ContextSummaryTest, OverTheThresholdAsksForASummaryOfTheOlderSpan) {
  std::vector<Message> h = long_history();
  ContextManager cm(tight_policy(h), bytes());
  CompactionStep step = cm.compact(h, {}, 14);
  ASSERT_TRUE(step.summary_needed());
  const SummaryRequest& req = *step.summary;
  EXPECT_EQ(req.span_begin, 2u);  // after the system prompt and the task
  EXPECT_EQ(req.span_end, 26u);   // the assistant message of round 13 starts the recency window
  ASSERT_EQ(req.messages.size(), 2u);
  EXPECT_EQ(req.messages[0].role, Role::kSystem);
  EXPECT_EQ(req.messages[0].content, "Summarize.");
  EXPECT_EQ(req.messages[1].role, Role::kUser);
  const std::string& body = req.messages[1].content;
  EXPECT_EQ(body.rfind("Summarize this earlier part of the conversation (24 messages):\n", 0), 0u) << body;
  EXPECT_NE(body.find("[assistant]\n-> call fs_read {\"n\":1}"), std::string::npos) << body;
  EXPECT_NE(body.find("[result of fs_read] [fs_read → round 1]"), std::string::npos) << body;
  EXPECT_EQ(body.find("round 13"), std::string::npos);  // the recency window is not summarized
  EXPECT_EQ(step.report.stages, std::vector<CompactionStage>{CompactionStage::kMicrocompact});
  EXPECT_EQ(h.size(), 30u);  // nothing replaced yet
}

TEST(ContextSummaryTest, ApplySummaryReplacesTheSpanWithOneMessage) {
  std::vector<Message> h = long_history();
  ContextManager cm(tight_policy(h), bytes());
  CompactionStep step = cm.compact(h, {}, 14);
  ASSERT_TRUE(step.summary_needed());
  std::string round13 = h[27].content;
  CompactionReport r = cm.apply_summary(h, "  The agent read 12 files.\n", 14);
  ASSERT_EQ(h.size(), 7u);
  EXPECT_EQ(h[0].content, "SYS");
  EXPECT_EQ(h[1].content, "TASK");
  EXPECT_EQ(h[2].role, Role::kUser);
  EXPECT_EQ(h[2].content, "[Summary of earlier conversation]\nThe agent read 12 files.");
  EXPECT_EQ(h[2].metadata.at("kind"), "summary");
  EXPECT_EQ(h[2].metadata.at("summarized_messages"), "24");
  EXPECT_EQ(h[4].content, round13);
  EXPECT_EQ(r.stages, (std::vector<CompactionStage>{CompactionStage::kMicrocompact, CompactionStage::kSummary}));
  EXPECT_EQ(r.messages_digested, 12u);
  EXPECT_EQ(r.messages_summarized, 24u);
  EXPECT_FALSE(r.still_over_limit);
  EXPECT_LT(r.tokens_after, r.limit);
  EXPECT_GT(r.tokens_before, r.tokens_after);
  EXPECT_EQ(r.note,
            "Context compacted: 12 old tool results digested, 24 earlier messages summarized; re-read anything "
            "you need.");
  EXPECT_TRUE(r.summary_error.empty());
  EXPECT_TRUE(valid_history(h));
}

TEST(ContextSummaryTest, CooldownStopsANewRequestForNRounds) {
  std::vector<Message> tmpl = long_history();
  ContextPolicy p = tight_policy(tmpl);
  p.summary_cooldown_rounds = 3;
  p.summary_cache_entries = 0;  // so that the same span needs the model again
  ContextManager cm(p, bytes());
  std::vector<Message> h = tmpl;
  ASSERT_TRUE(cm.compact(h, {}, 10).summary_needed());
  (void)cm.apply_summary(h, "summary", 10);
  for (int round : {11, 12}) {
    h = tmpl;
    cm.invalidate();
    CompactionStep step = cm.compact(h, {}, round);
    EXPECT_FALSE(step.summary_needed()) << round;
    EXPECT_NE(step.report.summary_error.find("cooldown"), std::string::npos) << step.report.summary_error;
    EXPECT_FALSE(step.report.still_over_limit);  // the tail fallback took over
    EXPECT_TRUE(valid_history(h));
  }
  h = tmpl;
  cm.invalidate();
  EXPECT_TRUE(cm.compact(h, {}, 13).summary_needed());
}

TEST(ContextSummaryTest, ACachedSummaryIsReusedWithoutAModelCall) {
  std::vector<Message> tmpl = long_history();
  ContextPolicy p = tight_policy(tmpl);
  ContextManager cm(p, bytes());
  std::vector<Message> h = tmpl;
  CompactionStep first = cm.compact(h, {}, 1);
  ASSERT_TRUE(first.summary_needed());
  (void)cm.apply_summary(h, "cached text", 1);
  std::vector<SummaryCacheEntry> saved = cm.export_summary_cache();
  ASSERT_EQ(saved.size(), 1u);
  EXPECT_EQ(saved[0].span_hash, first.summary->span_hash);
  EXPECT_EQ(saved[0].summary, "cached text");

  // Same manager, same span later on.
  h = tmpl;
  cm.invalidate();
  CompactionStep again = cm.compact(h, {}, 10);
  ASSERT_FALSE(again.summary_needed());
  EXPECT_EQ(again.report.stages,
            (std::vector<CompactionStage>{CompactionStage::kMicrocompact, CompactionStage::kCachedSummary}));
  EXPECT_EQ(h[2].content, "[Summary of earlier conversation]\ncached text");
  EXPECT_EQ(h.size(), 7u);

  // Another manager that imported the cache (a resumed run).
  ContextManager other(p, bytes());
  other.import_summary_cache(saved);
  h = tmpl;
  CompactionStep resumed = other.compact(h, {}, 1);
  EXPECT_FALSE(resumed.summary_needed());
  EXPECT_EQ(h[2].content, "[Summary of earlier conversation]\ncached text");
}

TEST(ContextSummaryTest, TheSpanHashCoversRolesContentsAndCalls) {
  using detail::span_hash;
  std::vector<Message> a = {Message::user("ab"), Message::assistant("c", {{"id1", "fs_read", "{}"}})};
  std::vector<Message> same = a;
  EXPECT_EQ(span_hash(a), span_hash(same));
  std::vector<Message> role = a;
  role[0].role = Role::kAssistant;
  std::vector<Message> split = {Message::user("a"), Message::assistant("bc", {{"id1", "fs_read", "{}"}})};
  std::vector<Message> args = a;
  args[1].tool_calls[0].arguments = "{\"p\":1}";
  for (const auto& other : {role, split, args}) EXPECT_NE(span_hash(a), span_hash(other));
}

TEST(ContextSummaryTest, TheCacheKeyIsTheSpanHashIn16HexDigits) {
  EXPECT_EQ(detail::summary_cache_key(0), "0000000000000000");
  EXPECT_EQ(detail::summary_cache_key(0x1234abcdULL), "000000001234abcd");
  EXPECT_EQ(detail::summary_cache_key(0xfedcba9876543210ULL), "fedcba9876543210");
  EXPECT_EQ(detail::kSummaryCacheScope, "context_summary");
}

TEST(ContextSummaryTest, TheCacheIsBoundedAndEvictsTheOldest) {
  ContextPolicy p;
  p.summary_cache_entries = 16;
  ContextManager cm(p);
  std::vector<SummaryCacheEntry> many;
  for (uint64_t i = 1; i <= 20; ++i) many.push_back({i, "s" + std::to_string(i)});
  cm.import_summary_cache(many);
  std::vector<SummaryCacheEntry> kept = cm.export_summary_cache();
  ASSERT_EQ(kept.size(), 16u);
  EXPECT_EQ(kept.front().span_hash, 5u);
  EXPECT_EQ(kept.back().span_hash, 20u);
}

TEST(ContextSummaryTest, AFailedSummaryFallsThroughToTheTailFallback) {
  std::vector<Message> h = long_history();
  ContextManager cm(tight_policy(h), bytes());
  ASSERT_TRUE(cm.compact(h, {}, 14).summary_needed());
  CompactionReport r = cm.summary_failed(h, "backend offline", 14);
  EXPECT_NE(r.summary_error.find("backend offline"), std::string::npos);
  EXPECT_EQ(r.stages, (std::vector<CompactionStage>{CompactionStage::kMicrocompact, CompactionStage::kTailFallback}));
  EXPECT_EQ(r.tool_blocks_dropped, 1u);
  EXPECT_EQ(r.messages_dropped, 2u);
  EXPECT_FALSE(r.still_over_limit);
  EXPECT_EQ(r.note,
            "Context compacted: 12 old tool results digested, 1 tool block dropped; re-read anything you need.");
  EXPECT_EQ(h[1].content, "TASK");
  EXPECT_EQ(h[2].tool_calls.at(0).id, "call_2_1");  // round 1 went first
  EXPECT_TRUE(valid_history(h));
  EXPECT_EQ(cm.export_summary_cache().size(), 0u);
}

TEST(ContextSummaryTest, ASummaryForAHistoryThatChangedIsDiscarded) {
  std::vector<Message> h = long_history();
  ContextManager cm(tight_policy(h), bytes());
  ASSERT_TRUE(cm.compact(h, {}, 14).summary_needed());
  h[3].content = "edited behind the manager's back";
  cm.invalidate();
  CompactionReport r = cm.apply_summary(h, "stale", 14);
  EXPECT_NE(r.summary_error.find("changed"), std::string::npos);
  for (const Message& m : h) EXPECT_EQ(m.content.find("stale"), std::string::npos);
  EXPECT_FALSE(r.still_over_limit);
  EXPECT_TRUE(valid_history(h));
  // An empty summary is not applied either.
  std::vector<Message> h2 = long_history();
  ContextManager cm2(tight_policy(h2), bytes());
  ASSERT_TRUE(cm2.compact(h2, {}, 14).summary_needed());
  EXPECT_EQ(cm2.apply_summary(h2, " \n ", 14).summary_error, "the model returned an empty summary");
}

TEST(ContextSummaryTest, AHistoryWithNothingToSummarizeGoesToTheFallback) {
  std::vector<Message> h = start();
  add_round(h, 1, {lines(5000)});
  ContextPolicy p = base_policy();
  p.context_window = 2000;
  ContextManager cm(p, bytes());
  CompactionStep step = cm.compact(h, {}, 1);
  EXPECT_FALSE(step.summary_needed());
  EXPECT_NE(step.report.summary_error.find("fewer than 2"), std::string::npos) << step.report.summary_error;
  EXPECT_EQ(h.size(), 4u);  // only the last round's result could be cut
  EXPECT_EQ(step.report.results_truncated, 1u);
  EXPECT_FALSE(step.report.still_over_limit);
  EXPECT_TRUE(valid_history(h));
}

TEST(ContextSummaryTest, ASingleOldMessageIsNotWorthASummary) {
  std::vector<Message> h = start();
  h.push_back(Message::user("one more thing"));
  add_round(h, 1, {lines(3000)});
  add_round(h, 2, {lines(3000)});
  ContextPolicy p = base_policy();
  p.context_window = 4000;
  ContextManager cm(p, bytes());
  CompactionStep step = cm.compact(h, {}, 2);
  EXPECT_FALSE(step.summary_needed());
  EXPECT_NE(step.report.summary_error.find("fewer than 2"), std::string::npos) << step.report.summary_error;
  EXPECT_TRUE(valid_history(h));
}

TEST(ContextSummaryTest, ASpanCutToTheRequestBudgetEndsAtABlockBoundary) {
  std::vector<Message> tmpl = start();
  for (int r = 1; r <= 10; ++r) add_round(tmpl, r, {lines(100, "a"), lines(100, "b"), lines(100, "c")});
  size_t shortened = 0;
  for (size_t window = 500; window <= 1500; window += 7) {
    std::vector<Message> h = tmpl;
    ContextPolicy p = base_policy();
    p.context_window = window;
    ContextManager cm(p, bytes());
    CompactionStep step = cm.compact(h, {}, 10);
    if (!step.summary_needed()) continue;
    const SummaryRequest& req = *step.summary;
    ASSERT_LT(req.span_end, h.size());
    EXPECT_NE(h[req.span_end].role, Role::kTool) << "window " << window << " span ends inside a tool block";
    if (req.span_end < h.size() - 8) ++shortened;
    (void)cm.apply_summary(h, "s", 10);
    EXPECT_TRUE(valid_history(h)) << "window " << window;
  }
  EXPECT_GT(shortened, 0u);  // the budget did cut some spans short
}

TEST(ContextSummaryTest, EarlierRunsBeforeATaggedTaskAreSummarizedFirst) {
  std::vector<Message> h = {Message::system("SYS"), Message::user("old task")};
  add_round(h, 1, {lines(1000, "old")});
  h.push_back(Message::assistant("old answer"));
  h.push_back(task("NEW TASK"));
  for (int r = 2; r <= 4; ++r) add_round(h, r, {lines(1000)});
  ContextManager cm(tight_policy(h), bytes());
  CompactionStep step = cm.compact(h, {}, 4);
  ASSERT_TRUE(step.summary_needed());
  EXPECT_EQ(step.summary->span_begin, 1u);
  EXPECT_EQ(step.summary->span_end, 5u);
  (void)cm.apply_summary(h, "earlier: read old files", 4);
  EXPECT_EQ(h[1].metadata.at("kind"), "summary");
  EXPECT_EQ(h[2].content, "NEW TASK");
  EXPECT_TRUE(valid_history(h));
}

TEST(ContextSummaryTest, TheDefaultPromptIsUsedAndAnEarlierSummaryIsMerged) {
  ContextPolicy p;
  p.context_window = 4000;
  p.recency_rounds = 1;
  ContextManager cm(p);
  std::vector<Message> h = start();
  Message earlier = Message::user("[Summary of earlier conversation]\nfound the bug in parser.cpp");
  earlier.metadata["kind"] = "summary";
  h.push_back(earlier);
  for (int r = 1; r <= 3; ++r) add_round(h, r, {lines(14000)});
  CompactionStep step = cm.compact(h, {}, 3);
  ASSERT_TRUE(step.summary_needed());
  EXPECT_EQ(step.summary->messages[0].content, default_summarize_prompt());
  EXPECT_NE(step.summary->messages[1].content.find("[earlier summary] found the bug in parser.cpp"), std::string::npos);
}

TEST(ContextSummaryTest, PromptFileEqualsTheDefault) {
  std::ifstream in(std::string(KEEL_SOURCE_DIR) + "/prompts/summarize.md", std::ios::binary);
  ASSERT_TRUE(in.good()) << "prompts/summarize.md is missing";
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), default_summarize_prompt());
}

}  // namespace
}  // namespace keel
