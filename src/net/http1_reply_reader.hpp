// net/http1_reply_reader.hpp — reads one HTTP/1.x response from a connection's bytes as they
// arrive, for keel's own HTTP/1.1 client (net/plain_http_client). It finds the head's lines (1xx
// interim heads included), then the body however the server framed it (Content-Length, chunked,
// or up to the close) and hands both on undecoded otherwise, so the caller sees what libcurl would
// have shown it. It also says whether the connection may carry another request afterwards.
//
// A response that breaks the protocol (a status line that is not HTTP/1.x, a bad length or chunk
// size, a bare CR, a head over 256 KiB) is refused with a message, never guessed at. Pure: no I/O.
//
// Thread-safety: one reader per response, used by one thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace keel::detail {

class Http1ReplyReader {
 public:
  // Where the parts of the response go. Returning false stops reading (State::kStopped).
  class Handler {
   public:
    virtual ~Handler() = default;
    // A line of a head (the status line first, the empty line last), its line ending included.
    virtual bool on_head_line(std::string_view line) = 0;
    // Body bytes with the transfer framing removed.
    virtual bool on_body(std::string_view bytes) = 0;
  };

  enum class State {
    kReading,  // more bytes are needed
    kDone,     // the response is complete
    kStopped,  // the handler returned false
    kFailed,   // the bytes are not a valid response (see error())
  };

  // Takes the next bytes of the connection. Bytes after the end of the response are not read
  // (keep_alive() turns false when there were any).
  State feed(std::string_view bytes, Handler& handler);
  // The connection closed: kDone when the body runs to the close, else kFailed (the response
  // was cut short; error() says where).
  State at_close();

  State state() const { return state_; }
  // Whether any byte of the response has arrived.
  bool started() const { return received_ > 0; }
  // After kDone: the server keeps the connection open for another request.
  bool keep_alive() const { return state_ == State::kDone && keep_alive_; }
  const std::string& error() const { return error_; }

 private:
  enum class Part { kStatusLine, kHeaderLine, kChunkSize, kChunkData, kChunkEnd, kTrailer, kLength, kToClose };

  State fail(std::string why);
  // One complete line (ending included) in a head or in chunked framing.
  State on_line(std::string_view line, Handler& handler);
  State on_status_line(std::string_view line);
  State on_header(std::string_view line);
  // The empty line that ends a head: picks the body's framing.
  State end_of_head();

  // What the previous line of the head was, for a folded line that would continue it.
  enum class LastHeader { kNone, kFraming, kOther };

  Part part_ = Part::kStatusLine;
  LastHeader last_header_ = LastHeader::kNone;
  State state_ = State::kReading;
  std::string line_;  // a line that began in an earlier feed()
  std::string error_;
  uint64_t received_ = 0;    // bytes taken so far
  uint64_t head_bytes_ = 0;  // bytes of the current head
  int status_ = 0;
  bool http10_ = false;
  bool keep_alive_ = true;
  bool chunked_ = false;
  bool has_length_ = false;
  bool other_coding_ = false;  // a transfer coding keel does not decode: the body runs to the close
  uint64_t length_ = 0;        // Content-Length, or the current chunk's size
  uint64_t left_ = 0;          // bytes of the body (or chunk) still to come
};

}  // namespace keel::detail
