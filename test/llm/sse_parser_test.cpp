// SseParser: event framing, comments, line endings and arbitrary split points.
#include "llm/sse_parser.hpp"

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

}  // namespace
}  // namespace keel::detail
