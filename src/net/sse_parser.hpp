// An incremental parser for Server-Sent Events (text/event-stream) bodies, shared by the
// OpenAI-compatible client and the MCP HTTP transports.
//
// Bytes arrive in arbitrary pieces (curl write callbacks); the parser keeps only the unfinished
// line and the event being built, so the total work is linear in the stream length. It follows the
// WHATWG event-stream rules: lines end in "\n", "\r\n" or "\r"; a leading UTF-8 byte-order mark is
// skipped; lines starting with ':' are comments; "data:" with or without a following space; several
// data lines of one event are joined with "\n"; a blank line ends the event, which is dispatched
// when it has at least one data line (its data may be empty: an MCP priming event).
//
// What a resumable stream (MCP) needs is there too, and changes nothing for a caller that ignores
// it: the last event id, committed when an event ends even if it carries no data; the `retry`
// reconnection delay; reset_connection() for the next connection of the same stream; and an
// optional cap on line and event size (oversized()). A resumable stream never calls finish(), so an
// event cut off by the end of a connection is dropped and its id not committed: the resumed stream
// replays it.
//
//   SseParser parser(size_t{64} << 20);  // SseParser parser; has no size cap
//   parser.feed(bytes, [](const SseEvent& e) { use(e.data); return true; });
//   if (!parser.last_event_id().empty()) reconnect_after(parser.retry_ms().value_or(1000));
//
// Thread-safety: not thread-safe; one parser per stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace keel::detail {

struct SseEvent {
  std::string event;  // the "event:" field; empty means the default type "message"
  std::string data;   // data lines joined with "\n"
  std::string id;     // the last event id when the event ended ("" when none was set)
};

class SseParser {
 public:
  // Receives each complete event; returning false stops parsing (the rest of the input is dropped
  // and feed()/finish() return false).
  using EventFn = std::function<bool(const SseEvent&)>;

  // `max_event_bytes`: the longest line or event data accepted, in bytes; beyond it feed() fails
  // and oversized() turns true (a stream with no line breaks would otherwise grow without bound).
  // 0: no limit.
  explicit SseParser(size_t max_event_bytes = 0);

  // Parses the next piece of the stream. False once on_event asked to stop or an event exceeded
  // the size cap; every later call then returns false too (until reset_connection()).
  bool feed(std::string_view bytes, const EventFn& on_event);
  // The stream ended. Unlike the strict specification, an event whose closing blank line never
  // came (including an unterminated last line) is still dispatched: several servers end with
  // "data: [DONE]\n" alone, and a truly truncated JSON payload fails to parse downstream anyway.
  // A stream that will be resumed does not call this.
  bool finish(const EventFn& on_event);

  // A new connection of the same stream: drops the unfinished line and event and clears a stop or
  // an overflow; keeps the last event id and the retry delay.
  void reset_connection();

  // The id of the last complete event that set one ("" when none did); an id holding NUL is
  // ignored, as the rules say.
  const std::string& last_event_id() const { return last_event_id_; }
  // The last valid `retry` field (ASCII digits only), in milliseconds, capped at a day; nullopt
  // when the server sent none.
  std::optional<int64_t> retry_ms() const { return retry_ms_; }
  // Whether parsing stopped on an over-long line or event.
  bool oversized() const { return oversized_; }
  // Bytes consumed since construction, over all connections.
  size_t bytes_seen() const { return bytes_seen_; }

 private:
  bool process_line(std::string_view line, const EventFn& on_event);
  bool end_event(const EventFn& on_event);
  bool too_big(size_t bytes) const { return max_event_bytes_ != 0 && bytes > max_event_bytes_; }

  size_t max_event_bytes_;                 // 0: no limit
  std::string line_;                       // an unfinished line carried over from the previous feed
  bool skip_lf_ = false;                   // the previous feed ended in '\r'; a leading '\n' belongs to it
  bool at_start_ = true;                   // nothing seen yet on this connection (a byte-order mark is skipped)
  bool stopped_ = false;                   // on_event returned false, or an event was too big
  bool oversized_ = false;                 // an event was too big
  bool has_data_ = false;                  // at least one data line in the current event
  SseEvent current_;                       // the event being built (its id is unused: see pending_id_)
  std::optional<std::string> pending_id_;  // the current event's id field, committed at its end
  std::string last_event_id_;
  std::optional<int64_t> retry_ms_;
  size_t bytes_seen_ = 0;
};

}  // namespace keel::detail
