// net/http1_reply_reader against public test vectors: the response cases of Node's HTTP parser
// llhttp, kept with what keel must read from each in test/fixtures/http1_replies (see the README
// there). Every case is fed whole and split at every byte size, all of which must read the same:
// the state, the status of the final head, the body and whether the connection may be kept.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "net/http1_reply_reader.hpp"

namespace keel::detail {
namespace {

// Names here are particular to this file: a unity build compiles it beside the reader's own test.
using ReplyState = Http1ReplyReader::State;

std::filesystem::path llhttp_vectors_file() {
  return std::filesystem::path(KEEL_SOURCE_DIR) / "test/fixtures/http1_replies/llhttp_responses.json";
}

nlohmann::json load_llhttp_cases() {
  std::ifstream in(llhttp_vectors_file(), std::ios::binary);
  if (!in) return nlohmann::json::array();
  return nlohmann::json::parse(in);
}

// The status of a head's first line ("HTTP/1.1 200 OK\r\n" -> 200); 0 when it has none.
int first_line_status(const std::string& line) {
  if (line.size() < 12) return 0;
  int status = 0;
  for (size_t i = 9; i < 12; ++i) {
    if (line[i] < '0' || line[i] > '9') return 0;
    status = status * 10 + (line[i] - '0');
  }
  return status;
}

struct VectorSink : Http1ReplyReader::Handler {
  std::string first_line;  // the first line of the latest head
  bool head_begins = true;
  std::string body;
  bool on_head_line(std::string_view line) override {
    if (head_begins) first_line = line;
    head_begins = line == "\r\n" || line == "\n";  // the empty line ends a head; another may follow
    return true;
  }
  bool on_body(std::string_view bytes) override {
    body.append(bytes);
    return true;
  }
};

struct VectorRead {
  ReplyState state;
  int status;
  std::string body;
  bool keep_alive;
  std::string error;
};

// Offers `wire` in pieces of `piece` bytes (0: whole), as a connection would deliver them, every
// piece even after the response ends (bytes after it are not read, but the connection is then not
// kept), then a close when `close` is set.
VectorRead read_vector(const std::string& wire, size_t piece, bool close) {
  Http1ReplyReader reader;
  VectorSink sink;
  const size_t step = piece == 0 ? wire.size() : piece;
  for (size_t at = 0; at < wire.size(); at += step) reader.feed(std::string_view(wire).substr(at, step), sink);
  if (close) reader.at_close();
  return {reader.state(), first_line_status(sink.first_line), sink.body, reader.keep_alive(), reader.error()};
}

ReplyState expected_state(const std::string& name) {
  if (name == "done") return ReplyState::kDone;
  if (name == "failed") return ReplyState::kFailed;
  if (name == "reading") return ReplyState::kReading;
  ADD_FAILURE() << "unknown state " << name;
  return ReplyState::kStopped;
}

const char* state_name(ReplyState state) {
  switch (state) {
    case ReplyState::kReading:
      return "reading";
    case ReplyState::kDone:
      return "done";
    case ReplyState::kStopped:
      return "stopped";
    case ReplyState::kFailed:
      return "failed";
  }
  return "?";
}

TEST(Http1ReplyVectorsTest, TheFileHoldsWellFormedCases) {
  const nlohmann::json cases = load_llhttp_cases();
  ASSERT_TRUE(cases.is_array()) << llhttp_vectors_file();
  EXPECT_GE(cases.size(), 25u) << llhttp_vectors_file();
  for (const nlohmann::json& c : cases) {
    SCOPED_TRACE(c.value("name", std::string("(unnamed)")));
    EXPECT_TRUE(c.contains("name") && c["name"].is_string());
    EXPECT_TRUE(c.contains("source") && c["source"].is_string());
    EXPECT_TRUE(c.contains("wire") && c["wire"].is_string() && !c["wire"].get<std::string>().empty());
    EXPECT_TRUE(c.contains("close_after") && c["close_after"].is_boolean());
    ASSERT_TRUE(c.contains("expect") && c["expect"].contains("state"));
    const std::string state = c["expect"]["state"];
    if (state != "failed") {
      EXPECT_TRUE(c["expect"].contains("status") && c["expect"].contains("body") && c["expect"].contains("keep_alive"));
    }
    // A difference from llhttp's verdict says what llhttp reports and why keel reads otherwise.
    EXPECT_EQ(c.contains("llhttp"), c.contains("differs"));
  }
}

TEST(Http1ReplyVectorsTest, EveryCaseReadsAsExpectedWholeAndSplitAtEveryByte) {
  const nlohmann::json cases = load_llhttp_cases();
  ASSERT_FALSE(cases.empty()) << llhttp_vectors_file();
  for (const nlohmann::json& c : cases) {
    const std::string name = c.at("name");
    SCOPED_TRACE(name);
    const std::string wire = c.at("wire");
    const bool close = c.at("close_after");
    const nlohmann::json& expect = c.at("expect");

    const VectorRead whole = read_vector(wire, 0, close);
    EXPECT_STREQ(state_name(whole.state), state_name(expected_state(expect.at("state")))) << whole.error;
    if (expect.contains("status")) {
      EXPECT_EQ(whole.status, expect["status"].get<int>());
    }
    if (expect.contains("body")) {
      EXPECT_EQ(whole.body, expect["body"].get<std::string>());
    }
    if (expect.contains("keep_alive")) {
      EXPECT_EQ(whole.keep_alive, expect["keep_alive"].get<bool>());
    }
    if (whole.state == ReplyState::kFailed) {
      EXPECT_FALSE(whole.error.empty());
      EXPECT_FALSE(whole.keep_alive);
    }

    for (size_t piece = 1; piece < wire.size(); ++piece) {
      const VectorRead split = read_vector(wire, piece, close);
      const bool same = split.state == whole.state && split.status == whole.status && split.body == whole.body &&
                        split.keep_alive == whole.keep_alive && split.error == whole.error;
      if (!same) {
        ADD_FAILURE() << "pieces of " << piece << " read " << state_name(split.state) << " " << split.status
                      << " keep_alive=" << split.keep_alive << " body size " << split.body.size() << " \""
                      << split.error << "\", whole: " << state_name(whole.state) << " " << whole.status
                      << " keep_alive=" << whole.keep_alive << " body size " << whole.body.size() << " \""
                      << whole.error << "\"";
        break;  // one split per case is enough to show it
      }
    }
  }
}

}  // namespace
}  // namespace keel::detail
