// SseStreamParser: events, the last event id (committed at an event's end, kept across
// connections) and the retry delay.
#include "mcp/sse_stream_parser.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace keel::mcp {
namespace {

struct Collected {
  std::vector<keel::detail::SseEvent> events;
  SseStreamParser::EventFn fn() {
    return [this](const keel::detail::SseEvent& e) {
      events.push_back(e);
      return true;
    };
  }
};

TEST(SseStreamParserTest, DeliversEventsWithTypeDataAndId) {
  SseStreamParser p;
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

TEST(SseStreamParserTest, PrimingEventSetsTheIdAndRetry) {
  SseStreamParser p;
  Collected c;
  ASSERT_TRUE(p.feed("id: e1\r\nretry: 300\r\ndata:\r\n\r\n", c.fn()));
  ASSERT_EQ(c.events.size(), 1u);
  EXPECT_EQ(c.events[0].data, "");
  EXPECT_EQ(p.last_event_id(), "e1");
  EXPECT_EQ(p.retry_ms(), 300);
}

TEST(SseStreamParserTest, IdWithoutDataIsCommittedAtTheBlankLineOnly) {
  SseStreamParser p;
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

TEST(SseStreamParserTest, InvalidRetryIsIgnoredAndRetrySurvivesReconnects) {
  SseStreamParser p;
  Collected c;
  ASSERT_TRUE(p.feed("retry: 250\n\nretry: 1x\n\nretry:\n\n", c.fn()));
  EXPECT_EQ(p.retry_ms(), 250);
  p.reset_connection();
  EXPECT_EQ(p.retry_ms(), 250);
  SseStreamParser fresh;
  EXPECT_FALSE(fresh.retry_ms().has_value());
}

TEST(SseStreamParserTest, PiecesSplitAnywhereIncludingCrLfAndTheByteOrderMark) {
  const std::string stream = "\xEF\xBB\xBFid: s1\r\ndata: one\r\n\r\ndata: two\r\r";
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    SseStreamParser p;
    Collected c;
    ASSERT_TRUE(p.feed(stream.substr(0, cut), c.fn()));
    ASSERT_TRUE(p.feed(stream.substr(cut), c.fn()));
    ASSERT_EQ(c.events.size(), 2u) << cut;
    EXPECT_EQ(c.events[0].data, "one") << cut;
    EXPECT_EQ(c.events[1].data, "two") << cut;
    EXPECT_EQ(p.last_event_id(), "s1") << cut;
  }
}

TEST(SseStreamParserTest, StopsWhenTheCallbackSaysSo) {
  SseStreamParser p;
  int seen = 0;
  EXPECT_FALSE(p.feed("data: 1\n\ndata: 2\n\n", [&](const keel::detail::SseEvent&) { return ++seen < 1; }));
  EXPECT_EQ(seen, 1);
  EXPECT_FALSE(p.feed("data: 3\n\n", [&](const keel::detail::SseEvent&) { return true; }));
}

}  // namespace
}  // namespace keel::mcp
