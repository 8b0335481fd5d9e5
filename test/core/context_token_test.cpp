#include <gtest/gtest.h>

#include "context_test_util.hpp"
#include "keel/core/context_manager.hpp"
#include "keel/core/token_counter.hpp"

namespace keel {
namespace {

using namespace testing_ctx;

TEST(ContextTokenTest, LatinIsFourCodePointsPerTokenRoundedUp) {
  EstimatingTokenCounter c;
  EXPECT_EQ(c.count(""), 0u);
  EXPECT_EQ(c.count("a"), 1u);
  EXPECT_EQ(c.count("abcd"), 1u);
  EXPECT_EQ(c.count("abcde"), 2u);
  EXPECT_EQ(c.count(std::string(4000, 'x')), 1000u);
  EXPECT_EQ(c.count(std::string(4001, 'x')), 1001u);
  // Code points, not bytes: four two-byte letters are one token.
  EXPECT_EQ(c.count("éééé"), 1u);
  EXPECT_EQ(c.count("ééééé"), 2u);
}

TEST(ContextTokenTest, CjkIsOneTokenPerCharacter) {
  EstimatingTokenCounter c;
  EXPECT_EQ(c.count("你好世界"), 4u);
  EXPECT_EQ(c.count("こんにちは"), 5u);  // Hiragana
  EXPECT_EQ(c.count("カタカナ"), 4u);    // Katakana
  EXPECT_EQ(c.count("안녕하세요"), 5u);  // Hangul
  EXPECT_EQ(c.count("，。「」"), 4u);    // fullwidth and CJK punctuation
  EXPECT_EQ(c.count("𠀀𪚥"), 2u);        // Han extension B (4-byte UTF-8)
  EXPECT_EQ(c.count("㐀"), 1u);          // extension A
  // The default per-message overhead is 4.
  EXPECT_EQ(c.count_message(Message::user("你好世界")), 8u);
}

TEST(ContextTokenTest, MixedTextAddsBothClassesThenRoundsUp) {
  EstimatingTokenCounter c;
  EXPECT_EQ(c.count("Hello 世界"), 4u);         // 6/4 + 2 = 3.5
  EXPECT_EQ(c.count("abcd你好"), 3u);           // 1 + 2
  EXPECT_EQ(c.count("aaaaaaa你bbbbbbbb"), 5u);  // a CJK character across the 8-byte fast path: 15/4 + 1
  EXPECT_EQ(c.count("Привет"), 2u);             // Cyrillic counts as other text: 6/4
}

TEST(ContextTokenTest, EstimatorOptionsAreConfigurable) {
  EstimatingTokenCounter c({.chars_per_token = 2.0, .cjk_chars_per_token = 2.0, .per_message_overhead = 10});
  EXPECT_EQ(c.count("abcd"), 2u);
  EXPECT_EQ(c.count("你好世界"), 2u);
  EXPECT_EQ(c.count_message(Message::user("abcd")), 12u);
  EstimatingTokenCounter fallback({.chars_per_token = 0.0, .cjk_chars_per_token = -1.0, .per_message_overhead = 0});
  EXPECT_EQ(fallback.count("abcd你好"), 3u);
}

TEST(ContextTokenTest, MessageCountsContentReasoningCallsAndOverhead) {
  ByteCounter c(3);
  Message m = Message::assistant("hello", {{"call_1", "fs_read", "{\"p\":1}"}});
  m.reasoning = "think";
  EXPECT_EQ(c.count_message(m), 5u + 5u + 7u + 7u + 3u);
  ToolSpec t;
  t.name = "abc";
  t.description = "de";
  t.parameters_schema = "{}";
  EXPECT_EQ(c.count_tool(t), 3u + 2u + 2u + 3u);
}

TEST(ContextTokenTest, BreakdownByCategory) {
  std::vector<Message> h = start("system!", "task");
  add_round(h, 1, {"0123456789"});
  h.push_back(Message::assistant("done"));
  ToolSpec t;
  t.name = "fs_read";
  t.description = "reads";
  t.parameters_schema = "{}";
  std::vector<ToolSpec> tools = {t};

  ByteCounter c;
  TokenBreakdown b = count_breakdown(c, h, tools);
  EXPECT_EQ(b.system, 7u);
  EXPECT_EQ(b.user, 4u);
  EXPECT_EQ(b.assistant, std::string("fs_read{\"n\":1}done").size());
  EXPECT_EQ(b.tool_results, 10u);
  EXPECT_EQ(b.tools, 7u + 5u + 2u);
  EXPECT_EQ(b.total(), b.system + b.user + b.assistant + b.tool_results + b.tools);

  ContextManager cm({}, bytes());
  TokenBreakdown m = cm.measure(h, tools);
  EXPECT_EQ(m.system, b.system);
  EXPECT_EQ(m.tools, b.tools);
  EXPECT_EQ(m.user, b.user);
  EXPECT_EQ(m.assistant, b.assistant);
  EXPECT_EQ(m.tool_results, b.tool_results);
}

TEST(ContextTokenTest, MeasureCountsAppendedMessagesAndNoticesReplacedHistories) {
  ContextManager cm({}, bytes());
  ByteCounter c;
  std::vector<Message> h = start();
  EXPECT_EQ(cm.measure(h, {}).total(), total_tokens(c, h));
  add_round(h, 1, {"abc", "defgh"});
  EXPECT_EQ(cm.measure(h, {}).total(), total_tokens(c, h));
  // A different history of another size (the check of the known prefix fails): full recount.
  std::vector<Message> other = start("another system prompt", "another task");
  EXPECT_EQ(cm.measure(other, {}).total(), total_tokens(c, other));
  // An in-place edit the cheap check cannot see is picked up after invalidate().
  other[1].content = "changed!";
  cm.invalidate();
  EXPECT_EQ(cm.measure(other, {}).total(), total_tokens(c, other));
}

// Counts how many messages' contents it was asked about (each message's content is counted once).
class CallCounter final : public TokenCounter {
 public:
  size_t count(std::string_view text) const override {
    ++calls;
    return text.size();
  }
  size_t per_message_overhead() const override { return 0; }
  mutable size_t calls = 0;
};

TEST(ContextTokenTest, OnlyAppendedMessagesAreCounted) {
  auto counter = std::make_shared<CallCounter>();
  ContextPolicy p;
  p.context_window = 1'000'000;
  ContextManager cm(p, counter);
  std::vector<Message> h = start();
  for (int r = 1; r <= 50; ++r) add_round(h, r, {"abc", "def"});
  (void)cm.compact(h, {}, 50);
  size_t cold = counter->calls;
  EXPECT_GE(cold, h.size());
  counter->calls = 0;
  (void)cm.measure(h, {});
  (void)cm.compact(h, {}, 50);
  EXPECT_EQ(counter->calls, 0u);  // nothing new: nothing counted
  add_round(h, 51, {"ghi"});
  (void)cm.compact(h, {}, 51);
  // The two new messages (content + reasoning + one call) and the one result digested at the
  // edge of the recency window: a handful of calls, not the history again.
  EXPECT_LE(counter->calls, 10u);
}

TEST(ContextTokenTest, CompactKeepsTheCacheAlignedThroughItsOwnEdits) {
  ContextPolicy p;
  p.context_window = 600;
  p.recency_rounds = 1;
  ContextManager cm(p, bytes());
  ByteCounter c;
  std::vector<Message> h = start();
  for (int r = 1; r <= 12; ++r) {
    add_round(h, r, {lines(120), lines(90)});
    CompactionStep step = cm.compact(h, {}, r);
    CompactionReport report = step.summary_needed() ? cm.summary_failed(h, "offline", r) : step.report;
    EXPECT_EQ(report.tokens_after, total_tokens(c, h)) << "round " << r;
    EXPECT_EQ(cm.measure(h, {}).total(), total_tokens(c, h)) << "round " << r;
    EXPECT_TRUE(valid_history(h));
  }
}

}  // namespace
}  // namespace keel
