#include <gtest/gtest.h>

#include "context_test_util.hpp"
#include "core/context/microcompact_digest.hpp"
#include "core/context/text_cut.hpp"
#include "keel/core/context_manager.hpp"

namespace keel {
namespace {

using detail::make_digest;
using namespace testing_ctx;

bool valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    auto b = static_cast<unsigned char>(s[i]);
    size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += len;
  }
  return true;
}

TEST(ContextDigestTest, OkResultKeepsFirstNonEmptyLineWhitespaceCollapsed) {
  EXPECT_EQ(make_digest("fs_read", true, "\n  \n  # keel \t  runtime  \nsecond line\n", 120),
            "[fs_read → # keel runtime]");
  EXPECT_EQ(make_digest("fs_read", true, "single", 120), "[fs_read → single]");
  EXPECT_EQ(make_digest("fs_read", true, "", 120), "[fs_read → (empty)]");
  EXPECT_EQ(make_digest("fs_read", true, " \n\t\n", 120), "[fs_read → (empty)]");
  EXPECT_EQ(make_digest("", true, "x", 120), "[tool → x]");
}

TEST(ContextDigestTest, FailedResultSaysError) {
  EXPECT_EQ(make_digest("shell", false, "command not found: rg\nexit 127", 120),
            "[shell → error: command not found: rg]");
  EXPECT_EQ(make_digest("shell", false, "Error: no such file", 120), "[shell → error: no such file]");
  EXPECT_EQ(make_digest("shell", false, "", 120), "[shell → error: (empty)]");
}

TEST(ContextDigestTest, LongFirstLineIsCutAtAWordBoundary) {
  std::string line = "alpha beta gamma delta epsilon zeta";
  EXPECT_EQ(make_digest("t", true, line, 20), "[t → alpha beta gamma…]");
  EXPECT_EQ(make_digest("t", true, line, 16), "[t → alpha beta gamma…]");  // space right at the limit
  EXPECT_EQ(make_digest("t", true, line, 35), "[t → " + line + "]");       // exactly at the limit: no cut
  // No space in the second half of the limit: a hard cut.
  EXPECT_EQ(make_digest("t", true, "ab " + std::string(30, 'x'), 10), "[t → ab xxxxxxx…]");
}

TEST(ContextDigestTest, UnicodeIsCutOnACodePointBoundary) {
  std::string han;
  for (int i = 0; i < 50; ++i) han += "漢";
  std::string d = make_digest("t", true, han, 7);
  EXPECT_EQ(d, "[t → 漢漢漢漢漢漢漢…]");
  EXPECT_TRUE(valid_utf8(d));
  std::string mixed = "é" + std::string("😀😀😀😀😀😀");
  std::string d2 = make_digest("t", true, mixed, 3);
  EXPECT_EQ(d2, "[t → é😀😀…]");
  EXPECT_TRUE(valid_utf8(d2));
}

TEST(ContextDigestTest, TheRenderCutFollowsTheSameRules) {
  using detail::cut_at_word;
  EXPECT_EQ(cut_at_word("alpha beta gamma delta", 22), "alpha beta gamma delta");
  EXPECT_EQ(cut_at_word("alpha beta gamma delta", 20), "alpha beta gamma…");
  EXPECT_EQ(cut_at_word("alpha beta gamma delta", 16), "alpha beta gamma…");
  EXPECT_EQ(cut_at_word("漢漢漢漢漢漢", 4), "漢漢漢漢…");
  EXPECT_EQ(detail::utf8_prefix_bytes("é漢x", 2), 5u);
  EXPECT_EQ(detail::first_nonempty_line(" \n\t\n  x y \nz"), "  x y ");
  EXPECT_EQ(detail::first_nonempty_line(" \n \n"), "");
}

TEST(ContextDigestTest, OldResultsAreDigestedAndTheRecencyWindowIsKept) {
  ContextPolicy p;
  p.context_window = 1'000'000;  // far from the threshold: microcompact_always still digests
  p.recency_rounds = 2;
  ContextManager cm(p, bytes());
  std::vector<Message> h = start();
  for (int r = 1; r <= 4; ++r) add_round(h, r, {lines(300, "round " + std::to_string(r) + " output")});
  std::vector<Message> before = h;
  CompactionStep step = cm.compact(h, {}, 4);
  ASSERT_FALSE(step.summary_needed());
  const CompactionReport& r = step.report;
  EXPECT_EQ(r.messages_digested, 2u);
  ASSERT_EQ(r.stages, std::vector<CompactionStage>{CompactionStage::kMicrocompact});
  EXPECT_EQ(r.released_call_ids, (std::vector<std::string>{"call_1_1", "call_2_1"}));
  ASSERT_EQ(h.size(), before.size());
  EXPECT_EQ(h[3].content, "[fs_read → round 1 output]");
  EXPECT_EQ(h[3].metadata.at("compacted"), "digest");
  EXPECT_EQ(h[3].metadata.at("status"), "ok");
  EXPECT_EQ(h[3].tool_call_id, "call_1_1");
  EXPECT_EQ(h[5].content, "[fs_read → round 2 output]");
  EXPECT_EQ(h[7].content, before[7].content);  // rounds 3 and 4: verbatim
  EXPECT_EQ(h[9].content, before[9].content);
  EXPECT_FALSE(r.still_over_limit);
  EXPECT_EQ(r.note, "Context compacted: 2 old tool results digested; re-read anything you need.");
  EXPECT_TRUE(valid_history(h));
}

TEST(ContextDigestTest, ErrorAndDeniedResultsDigestAsErrors) {
  ContextPolicy p;
  p.context_window = 1'000'000;
  p.recency_rounds = 1;
  ContextManager cm(p, bytes());
  std::vector<Message> h = start();
  add_round(h, 1, {"timed out after 30 s\ndetails"}, "shell", "timeout");
  add_round(h, 2, {"denied: not allowed by the user. Do not retry."}, "shell", "denied");
  add_round(h, 3, {"ok"});
  (void)cm.compact(h, {}, 3);
  EXPECT_EQ(h[3].content, "[shell → error: timed out after 30 s]");
  EXPECT_EQ(h[5].content, "[shell → error: denied: not allowed by the user. Do not retry.]");
  EXPECT_EQ(h[7].content, "ok");
}

TEST(ContextDigestTest, DigestingIsIdempotent) {
  ContextPolicy p;
  p.context_window = 1'000'000;
  p.recency_rounds = 1;
  p.digest_chars = 10;
  ContextManager cm(p, bytes());
  std::vector<Message> h = start();
  for (int r = 1; r <= 3; ++r) add_round(h, r, {lines(200, "a long first line of output")});
  (void)cm.compact(h, {}, 3);
  std::vector<Message> once = h;
  EXPECT_EQ(once[3].content, "[fs_read → a long…]");
  CompactionStep again = cm.compact(h, {}, 4);
  EXPECT_EQ(again.report.messages_digested, 0u);
  EXPECT_TRUE(again.report.stages.empty());
  EXPECT_TRUE(again.report.note.empty());
  for (size_t i = 0; i < h.size(); ++i) EXPECT_EQ(h[i].content, once[i].content) << i;
  // A fresh manager (e.g. after a resume) does not digest a digest either.
  ContextManager fresh(p, bytes());
  CompactionStep third = fresh.compact(h, {}, 5);
  EXPECT_EQ(third.report.messages_digested, 0u);
  EXPECT_FALSE(detail::digest_message(h[3], 10));
  EXPECT_EQ(h[3].content, once[3].content);
}

TEST(ContextDigestTest, WithMicrocompactOnDemandOnlyWhatIsNeededIsDigestedOldestFirst) {
  ContextPolicy p;
  p.recency_rounds = 1;
  p.microcompact_always = false;
  std::vector<Message> h = start();
  for (int r = 1; r <= 4; ++r) add_round(h, r, {lines(400)});
  ByteCounter c;
  size_t total = total_tokens(c, h);

  p.context_window = total * 2;  // under the threshold: nothing happens
  ContextManager relaxed(p, bytes());
  std::vector<Message> h1 = h;
  EXPECT_EQ(relaxed.compact(h1, {}, 4).report.messages_digested, 0u);

  // Over by a little: digesting the oldest result is enough.
  p.context_window = static_cast<size_t>(static_cast<double>(total - 100) / 0.8) + 1;
  ContextManager tight(p, bytes());
  std::vector<Message> h2 = h;
  CompactionStep step = tight.compact(h2, {}, 4);
  EXPECT_FALSE(step.summary_needed());
  EXPECT_EQ(step.report.messages_digested, 1u);
  EXPECT_EQ(h2[3].metadata.count("compacted"), 1u);
  EXPECT_EQ(h2[5].metadata.count("compacted"), 0u);
  EXPECT_FALSE(step.report.still_over_limit);
}

TEST(ContextDigestTest, AReplacedHistoryIsDigestedEvenWhenMeasuredFirst) {
  ContextPolicy p;
  p.context_window = 1'000'000;
  p.recency_rounds = 1;
  for (bool tell : {true, false}) {  // invalidate() called, or the replacement detected
    ContextManager cm(p, bytes());
    std::vector<Message> a = start();
    for (int r = 1; r <= 30; ++r) add_round(a, r, {lines(100)});
    EXPECT_EQ(cm.compact(a, {}, 30).report.messages_digested, 29u);
    // A hook replaces the history: a shorter one, never digested.
    std::vector<Message> b = start("other system prompt");
    for (int r = 1; r <= 5; ++r) add_round(b, r, {lines(100)});
    if (tell) cm.invalidate();
    (void)cm.measure(b, {});
    EXPECT_EQ(cm.compact(b, {}, 5).report.messages_digested, 4u) << (tell ? "invalidated" : "detected");
  }
}

TEST(ContextDigestTest, FewerRoundsThanTheWindowDigestsNothing) {
  ContextPolicy p;
  p.context_window = 1'000'000;
  p.recency_rounds = 3;
  ContextManager cm(p, bytes());
  std::vector<Message> h = start();
  add_round(h, 1, {lines(300)});
  add_round(h, 2, {lines(300)});
  EXPECT_EQ(cm.compact(h, {}, 2).report.messages_digested, 0u);
  add_round(h, 3, {lines(300)});
  add_round(h, 4, {lines(300)});
  EXPECT_EQ(cm.compact(h, {}, 4).report.messages_digested, 1u);
}

}  // namespace
}  // namespace keel
