// net/http1_reply_reader: each framing of an HTTP/1.x response (Content-Length, chunked with
// extensions and trailers, up to the close, none), interim 1xx heads, whether the connection may
// be kept, and every way a reply can break the protocol or be cut short, each reported with a
// message. Every well-formed reply is also fed split at every byte and must read the same.
#include "net/http1_reply_reader.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace keel::detail {
namespace {

using State = Http1ReplyReader::State;

struct Collect : Http1ReplyReader::Handler {
  std::vector<std::string> lines;
  std::string body;
  size_t stop_after_body_bytes = std::string::npos;
  bool on_head_line(std::string_view line) override {
    lines.emplace_back(line);
    return true;
  }
  bool on_body(std::string_view bytes) override {
    body.append(bytes);
    return body.size() < stop_after_body_bytes;
  }
};

struct Read {
  State state;
  std::vector<std::string> lines;
  std::string body;
  bool keep_alive;
  std::string error;
};

// Feeds `wire` in pieces of `piece` bytes (0: whole), then a close when `close` is set.
Read read(const std::string& wire, size_t piece = 0, bool close = false) {
  Http1ReplyReader reader;
  Collect sink;
  State state = State::kReading;
  const size_t step = piece == 0 ? wire.size() : piece;
  for (size_t at = 0; at < wire.size() && state == State::kReading; at += step) {
    state = reader.feed(std::string_view(wire).substr(at, step), sink);
  }
  if (close) state = reader.at_close();
  return {state, sink.lines, sink.body, reader.keep_alive(), reader.error()};
}

// Reads `wire` whole and split at every byte size; every way must give the same result.
Read read_every_way(const std::string& wire, bool close = false) {
  const Read whole = read(wire, 0, close);
  for (size_t piece = 1; piece < wire.size(); ++piece) {
    const Read split = read(wire, piece, close);
    EXPECT_EQ(split.state, whole.state) << "pieces of " << piece;
    EXPECT_EQ(split.lines, whole.lines) << "pieces of " << piece;
    EXPECT_EQ(split.body, whole.body) << "pieces of " << piece;
    EXPECT_EQ(split.keep_alive, whole.keep_alive) << "pieces of " << piece;
  }
  return whole;
}

TEST(Http1ReplyReaderTest, ContentLengthBodyKeepsTheConnection) {
  const Read r =
      read_every_way("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}");
  EXPECT_EQ(r.state, State::kDone);
  EXPECT_EQ(r.body, "{\"ok\":true}");
  ASSERT_EQ(r.lines.size(), 4u);
  EXPECT_EQ(r.lines[0], "HTTP/1.1 200 OK\r\n");
  EXPECT_EQ(r.lines[3], "\r\n");
  EXPECT_TRUE(r.keep_alive);
}

TEST(Http1ReplyReaderTest, ChunkedBodyWithExtensionsAndTrailersIsDecoded) {
  const Read r = read_every_way(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;name=value\r\ndata:\r\n"
      "A\r\n {\"a\":1}\n\n\r\n"
      "0\r\nX-Trailer: t\r\n\r\n");
  EXPECT_EQ(r.state, State::kDone);
  EXPECT_EQ(r.body, "data: {\"a\":1}\n\n");
  EXPECT_TRUE(r.keep_alive);
}

TEST(Http1ReplyReaderTest, InterimHeadsComeBeforeTheFinalOne) {
  const Read r = read_every_way("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok");
  EXPECT_EQ(r.state, State::kDone);
  ASSERT_EQ(r.lines.size(), 5u);
  EXPECT_EQ(r.lines[2], "HTTP/1.1 201 Created\r\n");
  EXPECT_EQ(r.body, "ok");
}

TEST(Http1ReplyReaderTest, ABodyWithoutLengthRunsToTheClose) {
  const Read r = read_every_way("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it", true);
  EXPECT_EQ(r.state, State::kDone);
  EXPECT_EQ(r.body, "all of it");
  EXPECT_FALSE(r.keep_alive);
}

TEST(Http1ReplyReaderTest, AnUnknownTransferCodingRunsToTheCloseUndecoded) {
  const Read r = read_every_way("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nraw", true);
  EXPECT_EQ(r.state, State::kDone);
  EXPECT_EQ(r.body, "raw");
  EXPECT_FALSE(r.keep_alive);
}

TEST(Http1ReplyReaderTest, WhetherTheConnectionIsKept) {
  EXPECT_FALSE(read("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n").keep_alive);
  EXPECT_FALSE(read("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").keep_alive);
  EXPECT_TRUE(read("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n").keep_alive);
  EXPECT_TRUE(read("HTTP/1.1 204 No Content\r\n\r\n").keep_alive);
  // Both framings named: the chunks are read, the connection is not trusted again.
  const Read both =
      read("HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n");
  EXPECT_EQ(both.state, State::kDone);
  EXPECT_EQ(both.body, "x");
  EXPECT_FALSE(both.keep_alive);
  // Bytes after the response: not a connection to reuse.
  const Read extra = read("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxHTTP/1.1 200 OK\r\n");
  EXPECT_EQ(extra.state, State::kDone);
  EXPECT_EQ(extra.body, "x");
  EXPECT_FALSE(extra.keep_alive);
}

TEST(Http1ReplyReaderTest, NoBodyFor204And304) {
  const Read r = read("HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\n\r\n");
  EXPECT_EQ(r.state, State::kDone);
  EXPECT_EQ(r.body, "");
}

TEST(Http1ReplyReaderTest, BrokenRepliesAreRefusedWithAReason) {
  const struct {
    std::string wire;
    std::string error;
  } cases[] = {
      {"SSH-2.0-OpenSSH_9.2\r\n", "the reply does not begin with an HTTP/1.x status line: \"SSH-2.0-OpenSSH_9.2\""},
      {"HTTP/2 200\r\n\r\n", "the reply does not begin with an HTTP/1.x status line: \"HTTP/2 200\""},
      {"HTTP/1.1 2000 OK\r\n\r\n", "the reply does not begin with an HTTP/1.x status line: \"HTTP/1.1 2000 OK\""},
      {"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "a header line without a colon: \"no colon here\""},
      {"HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\n", "a Content-Length that is not a number: \"12x\""},
      {"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "a Content-Length that is not a number: \"-1\""},
      {"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "two different Content-Length headers"},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "a chunk size that is not hexadecimal: \"zz\""},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nxy\r\n", "a chunk longer than its size said"},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000\r\n",
       "a chunk size over 15 hexadecimal digits"},
      {"HTTP/1.1 101 Switching Protocols\r\n\r\n", "the server switched protocols, which keel did not ask for"},
      {"HTTP/1.1 200 OK\r\rContent-Length: 4\r\n\r\nEvil",
       "a bare CR in a line of the reply's framing: \"HTTP/1.1 200 OK??Content-Length: 4\""},
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\rx\r\n",
       "a bare CR in a line of the reply's framing: \"1?x\""},
  };
  for (const auto& c : cases) {
    const Read r = read(c.wire);
    EXPECT_EQ(r.state, State::kFailed) << c.wire;
    EXPECT_EQ(r.error, c.error) << c.wire;
    EXPECT_FALSE(r.keep_alive) << c.wire;
  }
}

TEST(Http1ReplyReaderTest, EmptyLinesBeforeAStatusLineAreSkipped) {
  // aiohttp sends an empty line after "100 Continue" (llhttp's connection.md keeps such a reply).
  const Read r =
      read_every_way("\r\nHTTP/1.1 100 Continue\r\n\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno");
  EXPECT_EQ(r.state, State::kDone);
  EXPECT_EQ(r.body, "no");
  EXPECT_EQ(r.lines.at(2), "HTTP/1.1 404 Not Found\r\n");
}

TEST(Http1ReplyReaderTest, AFoldedLineIsPassedOnUnlessItWouldChangeTheFraming) {
  const Read folded = read("HTTP/1.1 200 OK\r\nX-A: 1\r\n Content-Length: 2\r\nContent-Length: 3\r\n\r\nabc");
  EXPECT_EQ(folded.state, State::kDone);  // the folded line is X-A's, not a Content-Length
  EXPECT_EQ(folded.body, "abc");
  EXPECT_EQ(folded.lines.at(2), " Content-Length: 2\r\n");
  for (const std::string wire :
       {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n  abc\r\n\r\n5\r\nWorld\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip,\r\n chunked\r\n\r\n5\r\nWorld\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nConnection: keep-alive,\r\n\tclose\r\nContent-Length: 0\r\n\r\n"}) {
    const Read r = read(wire);
    EXPECT_EQ(r.state, State::kFailed) << wire;
    EXPECT_EQ(r.error, "a header that frames the body is folded over two lines") << wire;
  }
  const Read first = read("HTTP/1.1 200 OK\r\n Content-Length: 2\r\n\r\nab");
  EXPECT_EQ(first.state, State::kFailed);
  EXPECT_EQ(first.error, "a header line that begins with a blank: \"Content-Length: 2\"");
}

TEST(Http1ReplyReaderTest, AHeadOverTheLimitIsRefused) {
  const std::string wire = "HTTP/1.1 200 OK\r\nX-Big: " + std::string(300 * 1024, 'a') + "\r\n\r\n";
  const Read r = read(wire, 4096);
  EXPECT_EQ(r.state, State::kFailed);
  EXPECT_EQ(r.error, "the reply's head is larger than 256 KiB");
}

TEST(Http1ReplyReaderTest, AReplyCutShortAnywhereIsAFailureNamingWhere) {
  const std::string length = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789";
  const std::string chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n0\r\n\r\n";
  for (const std::string& wire : {length, chunked}) {
    for (size_t cut = 0; cut < wire.size(); ++cut) {
      const Read r = read(wire.substr(0, cut), 0, true);
      EXPECT_EQ(r.state, State::kFailed) << "cut at " << cut << " of " << wire;
      EXPECT_FALSE(r.error.empty());
    }
  }
  EXPECT_EQ(read("", 0, true).error, "the connection closed before a reply");
  EXPECT_EQ(read("HTTP/1.1 200 OK\r\n", 0, true).error, "the connection closed inside the reply's head");
  EXPECT_EQ(read(length.substr(0, length.size() - 4), 0, true).error,
            "the connection closed after 6 of the 10 body bytes its Content-Length announced");
  EXPECT_EQ(read(chunked.substr(0, chunked.size() - 5), 0, true).error,
            "the connection closed inside the chunked body");
}

TEST(Http1ReplyReaderTest, AHandlerCanStopTheReading) {
  Http1ReplyReader reader;
  Collect sink;
  sink.stop_after_body_bytes = 3;
  EXPECT_EQ(reader.feed("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789", sink), State::kStopped);
  EXPECT_FALSE(reader.keep_alive());
}

}  // namespace
}  // namespace keel::detail
