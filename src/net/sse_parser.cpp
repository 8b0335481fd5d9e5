// Incremental text/event-stream parsing; see sse_parser.hpp.
#include "net/sse_parser.hpp"

#include <utility>

namespace keel::detail {
namespace {

// The `retry` field counts only when it is all ASCII digits; an absurd value is capped at a day.
std::optional<int64_t> parse_retry(std::string_view value) {
  if (value.empty()) return std::nullopt;
  int64_t ms = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    ms = ms * 10 + (c - '0');
    if (ms > 86'400'000) ms = 86'400'000;
  }
  return ms;
}

}  // namespace

SseParser::SseParser(size_t max_event_bytes) : max_event_bytes_(max_event_bytes) {}

void SseParser::reset_connection() {
  line_.clear();
  skip_lf_ = false;
  at_start_ = true;
  stopped_ = false;
  oversized_ = false;
  has_data_ = false;
  current_ = SseEvent{};
  pending_id_.reset();
}

bool SseParser::feed(std::string_view bytes, const EventFn& on_event) {
  if (stopped_) return false;
  bytes_seen_ += bytes.size();
  if (at_start_ && !bytes.empty()) {
    // A byte-order mark may only open the stream; it can itself arrive split.
    static constexpr std::string_view kBom = "\xEF\xBB\xBF";
    const std::string_view probe = bytes.substr(0, kBom.size() - line_.size());
    if (kBom.substr(line_.size()).starts_with(probe)) {
      line_.append(probe);
      bytes.remove_prefix(probe.size());
      if (line_.size() < kBom.size()) return true;  // still undecided
      line_.clear();
    }
    at_start_ = false;  // otherwise line_ holds the start of a line, not of a mark: keep it
  }
  if (skip_lf_ && !bytes.empty()) {
    if (bytes.front() == '\n') bytes.remove_prefix(1);
    skip_lf_ = false;
  }
  while (!bytes.empty()) {
    const size_t end = bytes.find_first_of("\r\n");
    if (end == std::string_view::npos) {
      line_.append(bytes);
      if (too_big(line_.size() + current_.data.size())) {
        oversized_ = stopped_ = true;
        return false;
      }
      return true;
    }
    bool ok;
    if (line_.empty()) {
      ok = process_line(bytes.substr(0, end), on_event);
    } else {
      line_.append(bytes.substr(0, end));
      ok = process_line(line_, on_event);
      line_.clear();
    }
    if (!ok) {
      stopped_ = true;
      return false;
    }
    const bool cr = bytes[end] == '\r';
    bytes.remove_prefix(end + 1);
    if (cr) {
      if (bytes.empty()) {
        skip_lf_ = true;
      } else if (bytes.front() == '\n') {
        bytes.remove_prefix(1);
      }
    }
  }
  return true;
}

bool SseParser::finish(const EventFn& on_event) {
  if (stopped_) return false;
  if (!line_.empty()) {
    std::string last;
    last.swap(line_);
    if (!process_line(last, on_event)) {
      stopped_ = true;
      return false;
    }
  }
  if (has_data_ && !end_event(on_event)) {
    stopped_ = true;
    return false;
  }
  return true;
}

bool SseParser::process_line(std::string_view line, const EventFn& on_event) {
  if (line.empty()) return end_event(on_event);
  if (line.front() == ':') return true;  // a comment, e.g. ": keep-alive"
  std::string_view field = line;
  std::string_view value;
  if (const size_t colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    if (has_data_) current_.data.push_back('\n');
    current_.data.append(value);
    has_data_ = true;
    if (too_big(current_.data.size())) {
      oversized_ = true;
      return false;
    }
  } else if (field == "event") {
    current_.event.assign(value);
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) pending_id_.emplace(value);  // NUL: ignored
  } else if (field == "retry") {
    if (std::optional<int64_t> ms = parse_retry(value)) retry_ms_ = ms;
  }
  return true;  // unknown fields are ignored
}

// The end of an event (a blank line, or finish()): its id is committed whether or not it carries
// data, so a resumed stream starts after it; only an event with data is dispatched.
bool SseParser::end_event(const EventFn& on_event) {
  if (pending_id_) last_event_id_ = std::move(*pending_id_);
  pending_id_.reset();
  if (!has_data_) {
    current_.event.clear();
    return true;
  }
  SseEvent event;
  event.data.swap(current_.data);
  event.event.swap(current_.event);
  event.id = last_event_id_;  // the last event id persists across events
  has_data_ = false;
  return on_event(event);
}

}  // namespace keel::detail
