// SseParser: event framing, comments, line endings and arbitrary split points; and for resumable
// streams the last event id (committed at an event's end, kept across connections), the retry
// delay and the size cap.
#include "net/sse_parser.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace keel::detail {
namespace {

std::vector<SseEvent> parse_in_pieces(std::string_view stream, const std::vector<size_t>& cuts) {
  std::vector<SseEvent> events;
  SseParser parser;
  auto collect = [&](const SseEvent& e) {
    events.push_back(e);
    return true;
  };
  size_t from = 0;
  for (size_t cut : cuts) {
    EXPECT_TRUE(parser.feed(stream.substr(from, cut - from), collect));
    from = cut;
  }
  EXPECT_TRUE(parser.feed(stream.substr(from), collect));
  EXPECT_TRUE(parser.finish(collect));
  return events;
}

std::vector<std::string> datas(const std::vector<SseEvent>& events) {
  std::vector<std::string> out;
  for (const SseEvent& e : events) out.push_back(e.data);
  return out;
}

constexpr std::string_view kSample =
    ": keep-alive comment\r\n"
    "data: {\"a\":1}\r\n"
    "\r\n"
    "event: update\n"
    "data:no-space\n"
    "data:  two spaces\n"
    "\n"
    "id: 7\r"
    "data: cr-only\r"
    "\r"
    "data: [DONE]\n"
    "\n";

const std::vector<std::string> kExpected = {"{\"a\":1}", "no-space\n two spaces", "cr-only", "[DONE]"};

TEST(SseParserTest, ParsesFieldsCommentsAndLineEndings) {
  const std::vector<SseEvent> events = parse_in_pieces(kSample, {});
  ASSERT_EQ(datas(events), kExpected);
  EXPECT_EQ(events[1].event, "update");
  EXPECT_EQ(events[0].event, "");
  EXPECT_EQ(events[2].id, "7");
}

TEST(SseParserTest, EverySplitPointGivesTheSameEvents) {
  for (size_t cut = 0; cut <= kSample.size(); ++cut) {
    EXPECT_EQ(datas(parse_in_pieces(kSample, {cut})), kExpected) << "split at byte " << cut;
  }
}

TEST(SseParserTest, ByteByByteGivesTheSameEvents) {
  std::vector<size_t> cuts;
  for (size_t i = 1; i < kSample.size(); ++i) cuts.push_back(i);
  EXPECT_EQ(datas(parse_in_pieces(kSample, cuts)), kExpected);
}

TEST(SseParserTest, EveryPairOfSplitPointsGivesTheSameEvents) {
  for (size_t a = 0; a <= kSample.size(); a += 3) {
    for (size_t b = a; b <= kSample.size(); b += 5) {
      ASSERT_EQ(datas(parse_in_pieces(kSample, {a, b})), kExpected) << a << "," << b;
    }
  }
}

TEST(SseParserTest, CommentOnlyAndDatalessEventsAreNotDispatched) {
  EXPECT_TRUE(parse_in_pieces(": ping\n\n:another\n\nevent: x\n\n", {}).empty());
}

TEST(SseParserTest, FinishDispatchesAnUnterminatedLastEvent) {
  EXPECT_EQ(datas(parse_in_pieces("data: a\n\ndata: [DONE]", {})), (std::vector<std::string>{"a", "[DONE]"}));
  EXPECT_EQ(datas(parse_in_pieces("data: a\n\ndata: b\n", {})), (std::vector<std::string>{"a", "b"}));
}

TEST(SseParserTest, SkipsByteOrderMarkEvenWhenSplit) {
  const std::string stream = "\xEF\xBB\xBF" "data: x\n\n";
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    EXPECT_EQ(datas(parse_in_pieces(stream, {cut})), std::vector<std::string>{"x"}) << cut;
  }
}

TEST(SseParserTest, StopsWhenTheCallbackSaysSo) {
  SseParser parser;
  int calls = 0;
  auto once = [&](const SseEvent&) { return ++calls < 1; };
  EXPECT_FALSE(parser.feed("data: a\n\ndata: b\n\n", once));
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(parser.feed("data: c\n\n", once));
  EXPECT_EQ(calls, 1);
}

TEST(SseParserTest, LongLineAcrossManyPiecesStaysIntact) {
  std::string payload(100000, 'x');
  const std::string stream = "data: " + payload + "\n\n";
  std::vector<size_t> cuts;
  for (size_t i = 7; i < stream.size(); i += 7) cuts.push_back(i);
  const std::vector<SseEvent> events = parse_in_pieces(stream, cuts);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, payload);
}

TEST(SseParserTest, FinishCommitsTheIdOfTheEventItDispatches) {
  SseParser parser;
  std::vector<SseEvent> events;
  auto collect = [&](const SseEvent& e) {
    events.push_back(e);
    return true;
  };
  ASSERT_TRUE(parser.feed("id: 5\ndata: x", collect));
  EXPECT_TRUE(events.empty());
  ASSERT_TRUE(parser.finish(collect));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].id, "5");
  EXPECT_EQ(parser.last_event_id(), "5");
}

// What resumable (MCP) streams rely on.

struct Collected {
  std::vector<SseEvent> events;
  SseParser::EventFn fn() {
    return [this](const SseEvent& e) {
      events.push_back(e);
      return true;
    };
  }
};

TEST(SseParserResumableTest, DeliversEventsWithTypeDataAndId) {
  SseParser p;
  Collected c;
  ASSERT_TRUE(p.feed("event: message\nid: 7\ndata: {\"a\":\ndata: 1}\n\n: comment\ndata:x\n\n", c.fn()));
  ASSERT_EQ(c.events.size(), 2u);
  EXPECT_EQ(c.events[0].event, "message");
  EXPECT_EQ(c.events[0].data, "{\"a\":\n1}");
  EXPECT_EQ(c.events[0].id, "7");
  EXPECT_EQ(c.events[1].event, "");
  EXPECT_EQ(c.events[1].data, "x");
  EXPECT_EQ(c.events[1].id, "7");  // the last id persists
  EXPECT_EQ(p.last_event_id(), "7");
}

TEST(SseParserResumableTest, PrimingEventSetsTheIdAndRetry) {
  SseParser p;
  Collected c;
  ASSERT_TRUE(p.feed("id: e1\r\nretry: 300\r\ndata:\r\n\r\n", c.fn()));
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0].data, "");
  EXPECT_EQ(p.last_event_id(), "e1");
  EXPECT_EQ(p.retry_ms(), 300);
}

TEST(SseParserResumableTest, IdWithoutDataIsCommittedAtTheBlankLineOnly) {
  SseParser p;
  Collected c;
  ASSERT_TRUE(p.feed("id: a\n", c.fn()));
  EXPECT_EQ(p.last_event_id(), "");  // not before the event ends
  ASSERT_TRUE(p.feed("\n", c.fn()));
  EXPECT_EQ(p.last_event_id(), "a");
  EXPECT_TRUE(c.events.empty());  // no data: nothing dispatched
  // A truncated event does not move the id: a resumed stream replays it.
  ASSERT_TRUE(p.feed("id: b\ndata: half", c.fn()));
  p.reset_connection();
  EXPECT_EQ(p.last_event_id(), "a");
  ASSERT_TRUE(p.feed("data: whole\n\n", c.fn()));
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0].data, "whole");
  EXPECT_EQ(p.last_event_id(), "a");
}

TEST(SseParserResumableTest, IdHoldingNulIsIgnored) {
  SseParser p;
  Collected c;
  ASSERT_TRUE(p.feed("id: good\n\n", c.fn()));
  ASSERT_TRUE(p.feed(std::string_view("id: a\0b\ndata: x\n\n", 17), c.fn()));
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0].id, "good");
  EXPECT_EQ(p.last_event_id(), "good");
}

TEST(SseParserResumableTest, InvalidRetryIsIgnoredAndRetrySurvivesReconnects) {
  SseParser p;
  Collected c;
  ASSERT_TRUE(p.feed("retry: 250\n\nretry: 1x\n\nretry:\n\n", c.fn()));
  EXPECT_EQ(p.retry_ms(), 250);
  p.reset_connection();
  EXPECT_EQ(p.retry_ms(), 250);
  SseParser fresh;
  EXPECT_FALSE(fresh.retry_ms().has_value());
}

TEST(SseParserResumableTest, AbsurdRetryIsCappedAtADay) {
  SseParser p;
  Collected c;
  ASSERT_TRUE(p.feed("retry: 99999999999999999999999\n\n", c.fn()));
  EXPECT_EQ(p.retry_ms(), 86'400'000);
}

TEST(SseParserResumableTest, PiecesSplitAnywhereIncludingCrLfAndTheByteOrderMark) {
  const std::string stream = "\xEF\xBB\xBFid: s1\r\ndata: one\r\n\r\ndata: two\r\r";
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    SseParser p;
    Collected c;
    ASSERT_TRUE(p.feed(stream.substr(0, cut), c.fn()));
    ASSERT_TRUE(p.feed(stream.substr(cut), c.fn()));
    ASSERT_EQ(c.events.size(), 2u) << cut;
    EXPECT_EQ(c.events[0].data, "one") << cut;
    EXPECT_EQ(c.events[1].data, "two") << cut;
    EXPECT_EQ(p.last_event_id(), "s1") << cut;
  }
}

TEST(SseParserResumableTest, StopsWhenTheCallbackSaysSoUntilTheConnectionIsReset) {
  SseParser p;
  int seen = 0;
  EXPECT_FALSE(p.feed("data: 1\n\ndata: 2\n\n", [&](const SseEvent&) { return ++seen < 1; }));
  EXPECT_EQ(seen, 1);
  EXPECT_FALSE(p.feed("data: 3\n\n", [&](const SseEvent&) { return true; }));
  p.reset_connection();
  EXPECT_TRUE(p.feed("data: 4\n\n", [&](const SseEvent& e) {
    ++seen;
    EXPECT_EQ(e.data, "4");
    return true;
  }));
  EXPECT_EQ(seen, 2);
}

TEST(SseParserResumableTest, ResetStartsANewConnectionWithItsOwnByteOrderMark) {
  SseParser p;
  Collected c;
  std::string first = "\xEF\xBB\xBF";
  first.append("data: a\n\ndata: cut");  // 3 + 18 bytes
  std::string second = "\xEF\xBB\xBF";
  second.append("data: b\n\n");  // 3 + 9 bytes
  ASSERT_TRUE(p.feed(first, c.fn()));
  p.reset_connection();
  ASSERT_TRUE(p.feed(second, c.fn()));
  ASSERT_EQ(c.events.size(), 2u);
  EXPECT_EQ(c.events[0].data, "a");
  EXPECT_EQ(c.events[1].data, "b");  // neither "cut" nor the mark leaks into it
  EXPECT_EQ(p.bytes_seen(), 33u);    // counted over both connections
}

TEST(SseParserResumableTest, LineWithoutBreakOverTheCapStopsTheStream) {
  SseParser p(16);
  Collected c;
  ASSERT_TRUE(p.feed("data: 0123456789", c.fn()));  // exactly 16 bytes: still allowed
  EXPECT_FALSE(p.oversized());
  EXPECT_FALSE(p.feed("x", c.fn()));
  EXPECT_TRUE(p.oversized());
  EXPECT_FALSE(p.feed("\n\n", c.fn()));
  EXPECT_TRUE(c.events.empty());
  p.reset_connection();
  EXPECT_FALSE(p.oversized());
  ASSERT_TRUE(p.feed("data: ok\n\n", c.fn()));
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0].data, "ok");
}

TEST(SseParserResumableTest, EventDataOverTheCapStopsTheStream) {
  SseParser p(10);
  Collected c;
  ASSERT_TRUE(p.feed("data: 0123456789\n\n", c.fn()));  // 10 bytes of data: allowed
  // "123456\n7890" is 11 bytes.
  EXPECT_FALSE(p.feed("data: 123456\ndata: 7890\n\n", c.fn()));
  EXPECT_TRUE(p.oversized());
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0].data, "0123456789");
}

TEST(SseParserResumableTest, NoCapByDefault) {
  SseParser p;
  Collected c;
  const std::string big(1u << 20, 'y');
  ASSERT_TRUE(p.feed("data: " + big, c.fn()));
  ASSERT_TRUE(p.feed("\n\n", c.fn()));
  EXPECT_FALSE(p.oversized());
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0].data.size(), big.size());
}

}  // namespace
}  // namespace keel::detail
