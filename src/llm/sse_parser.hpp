// An incremental parser for Server-Sent Events (text/event-stream) bodies.
//
// Bytes arrive in arbitrary pieces (curl write callbacks); the parser keeps only the unfinished
// line and the event being built, so the total work is linear in the stream length. It follows the
// WHATWG event-stream rules that matter for LLM streaming: lines end in "\n", "\r\n" or "\r";
// lines starting with ':' are comments; "data:" with or without a following space; several data
// lines of one event are joined with "\n"; a blank line dispatches the event.
//
// Thread-safety: not thread-safe; one parser per stream.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace keel::detail {

struct SseEvent {
  std::string event;  // the "event:" field; empty means the default type "message"
  std::string data;   // data lines joined with "\n"
  std::string id;     // the "id:" field, if any
};

class SseParser {
 public:
  // Receives each complete event; returning false stops parsing (the rest of the input is dropped
  // and feed()/finish() return false).
  using EventFn = std::function<bool(const SseEvent&)>;

  // Parses the next piece of the stream.
  bool feed(std::string_view bytes, const EventFn& on_event);
  // The stream ended. Unlike the strict specification, an event whose closing blank line never
  // came (including an unterminated last line) is still dispatched: several servers end with
  // "data: [DONE]\n" alone, and a truly truncated JSON payload fails to parse downstream anyway.
  bool finish(const EventFn& on_event);

  // Bytes consumed so far.
  size_t bytes_seen() const { return bytes_seen_; }

 private:
  bool process_line(std::string_view line, const EventFn& on_event);
  bool dispatch(const EventFn& on_event);

  std::string line_;          // an unfinished line carried over from the previous feed
  bool skip_lf_ = false;      // the previous feed ended in '\r'; a leading '\n' belongs to it
  bool at_start_ = true;      // nothing seen yet (a UTF-8 byte-order mark is skipped)
  bool stopped_ = false;      // on_event returned false
  bool has_data_ = false;     // at least one data line in the current event
  SseEvent current_;
  size_t bytes_seen_ = 0;
};

}  // namespace keel::detail
