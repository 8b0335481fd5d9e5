// What a local model's reply streams and where it stops: stop strings cut the text, a call marker
// stops the stream (the call still arrives whole), and partial markers and UTF-8 are held back.
#include <gtest/gtest.h>

#include "llm/text_stop_scanner.hpp"

namespace keel {
namespace {

std::string stream_all(TextStopScanner& s, std::initializer_list<std::string_view> pieces, bool* stopped) {
  std::string out;
  *stopped = false;
  for (std::string_view p : pieces) {
    *stopped = s.add(p);
    out += s.take_streamable();
    if (*stopped) break;
  }
  out += s.take_rest();
  return out;
}

TEST(TextStopScannerTest, CutsAtAStopStringSplitAcrossPieces) {
  TextStopScanner s({"<|im_end|>"}, {});
  bool stopped = false;
  std::string streamed = stream_all(s, {"Hello", " wor", "ld<|im", "_end|>more"}, &stopped);
  EXPECT_TRUE(stopped);
  EXPECT_EQ(s.text(), "Hello world");
  EXPECT_EQ(streamed, "Hello world");
}

TEST(TextStopScannerTest, HoldsBackWhatMayBecomeAStopString) {
  TextStopScanner s({"</s>"}, {});
  s.add("a </");
  EXPECT_EQ(s.take_streamable(), "a ");
  s.add("b");  // "</b" is not a stop string after all
  EXPECT_EQ(s.take_streamable(), "</b");
}

TEST(TextStopScannerTest, NothingAfterACallMarkerIsStreamed) {
  TextStopScanner s({"<|im_end|>"}, {"<tool_call>"});
  bool stopped = false;
  std::string streamed = stream_all(s, {"Let me check.", "\n<tool", "_call>\n{\"name\":", " \"x\"}\n</tool_call>"}, &stopped);
  EXPECT_FALSE(stopped);
  EXPECT_EQ(streamed, "Let me check.\n");
  EXPECT_EQ(s.text(), "Let me check.\n<tool_call>\n{\"name\": \"x\"}\n</tool_call>");
}

TEST(TextStopScannerTest, IncompleteUtf8WaitsForItsLastByte) {
  TextStopScanner s({}, {});
  s.add("caf\xC3");
  EXPECT_EQ(s.take_streamable(), "caf");
  s.add("\xA9 \xE6\x9D");
  EXPECT_EQ(s.take_streamable(), "\xC3\xA9 ");
  s.add("\xB1");
  EXPECT_EQ(s.take_streamable(), "\xE6\x9D\xB1");
  EXPECT_EQ(s.text(), "caf\xC3\xA9 \xE6\x9D\xB1");
}

TEST(TextStopScannerTest, TheEarliestOfSeveralStopsWins) {
  TextStopScanner s({"STOP", "END"}, {});
  EXPECT_TRUE(s.add("abc END x STOP"));
  EXPECT_EQ(s.text(), "abc ");
}

}  // namespace
}  // namespace keel
