// mcp/sse_stream_parser.hpp — Server-Sent Events parsing for resumable MCP streams.
//
// Like llm/sse_parser (which it mirrors for line and data handling), plus the two fields a
// resumable stream needs: the last event id, committed when an event ends (a blank line) even if
// the event carries no data, and the `retry` reconnection delay. Both outlive a connection: a
// resumed stream keeps its id and delay, and only the unfinished line and event are dropped
// (reset_connection()). An event cut off by the end of the stream is discarded, as the event-stream
// rules say; its id is not committed, so a resumed stream replays it.
//
//   SseStreamParser parser;
//   parser.feed(bytes, [](const keel::detail::SseEvent& e) { ...; return true; });
//   if (!parser.last_event_id().empty()) reconnect_after(parser.retry_ms().value_or(1000));
//
// Thread-safety: not thread-safe; one parser per logical stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "llm/sse_parser.hpp"

namespace keel::mcp {

class SseStreamParser {
 public:
  // Receives each complete event with at least one data line (its data may be empty: a priming
  // event); returning false stops parsing (feed() then returns false).
  using EventFn = std::function<bool(const keel::detail::SseEvent&)>;

  // The longest line or event data accepted; beyond it feed() fails (a stream with no line breaks
  // would otherwise grow without bound).
  static constexpr size_t kMaxEventBytes = size_t{64} << 20;

  // Parses the next piece of the stream. False when on_event asked to stop or an event exceeded
  // kMaxEventBytes (see oversized()).
  bool feed(std::string_view bytes, const EventFn& on_event);

  // A new connection of the same stream: drops the unfinished line and event, keeps the last
  // event id and the retry delay.
  void reset_connection();

  // The id of the last complete event that set one ("" when none did).
  const std::string& last_event_id() const { return last_event_id_; }
  // The last valid `retry` field, in milliseconds; nullopt when the server sent none.
  std::optional<int64_t> retry_ms() const { return retry_ms_; }
  // Whether parsing stopped on an over-long line or event.
  bool oversized() const { return oversized_; }

 private:
  bool process_line(std::string_view line, const EventFn& on_event);
  bool end_event(const EventFn& on_event);

  std::string line_;      // an unfinished line carried over from the previous feed
  bool skip_lf_ = false;  // the previous feed ended in '\r'; a leading '\n' belongs to it
  bool at_start_ = true;  // nothing seen yet on this connection (a byte-order mark is skipped)
  bool stopped_ = false;
  bool oversized_ = false;
  bool has_data_ = false;  // the current event has a data line
  keel::detail::SseEvent current_;
  std::string pending_id_;  // the id field of the current event, committed at its end
  bool has_pending_id_ = false;
  std::string last_event_id_;
  std::optional<int64_t> retry_ms_;
};

}  // namespace keel::mcp
