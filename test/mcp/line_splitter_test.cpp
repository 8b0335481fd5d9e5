#include "mcp/line_splitter.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace keel::mcp::detail {
namespace {

// Feeds `chunks` and records what comes out; "!" + head marks an overlong report.
std::vector<std::string> split(size_t max, const std::vector<std::string>& chunks, bool finish = false) {
  LineSplitter lines(max, 5);
  std::vector<std::string> out;
  const LineSplitter::LineFn on_line = [&](std::string_view l) { out.emplace_back(l); };
  const LineSplitter::OverlongFn on_overlong = [&](std::string_view head) {
    std::string mark = "!";
    mark.append(head);
    out.push_back(mark);
  };
  for (const std::string& c : chunks) lines.feed(c, on_line, on_overlong);
  if (finish) lines.finish(on_line);
  return out;
}

TEST(LineSplitter, JoinsLinesAcrossChunks) {
  EXPECT_EQ(split(100, {"ab", "c\nde", "f\n\ng", "h\n"}), (std::vector<std::string>{"abc", "def", "", "gh"}));
}

TEST(LineSplitter, KeepsAnUnterminatedLineUntilFinish) {
  EXPECT_EQ(split(100, {"one\ntw", "o"}), (std::vector<std::string>{"one"}));
  EXPECT_EQ(split(100, {"one\ntw", "o"}, true), (std::vector<std::string>{"one", "two"}));
}

TEST(LineSplitter, ALineAtTheCapIsDeliveredOneByteMoreIsNot) {
  EXPECT_EQ(split(4, {"abcd\n"}), (std::vector<std::string>{"abcd"}));
  EXPECT_EQ(split(4, {"abcde\nok\n"}), (std::vector<std::string>{"!abcd", "ok"}));
}

TEST(LineSplitter, AnOverlongLineIsReportedOnceWhileItStreams) {
  // The report comes as the cap is crossed, before the line ends; the rest is dropped.
  EXPECT_EQ(split(6, {"12", "345", "678", "9", "0000", "\nnext\n"}), (std::vector<std::string>{"!12345", "next"}));
  LineSplitter lines(6, 5);
  int reports = 0;
  const LineSplitter::LineFn ignore = [](std::string_view) {};
  const LineSplitter::OverlongFn count = [&](std::string_view) { ++reports; };
  lines.feed("1234567", ignore, count);
  lines.feed("89", ignore, count);
  EXPECT_EQ(reports, 1);
  EXPECT_EQ(lines.discarded(), 9u);
  lines.finish(ignore);  // a dropped line is not delivered at the end either
  EXPECT_EQ(reports, 1);
}

}  // namespace
}  // namespace keel::mcp::detail
