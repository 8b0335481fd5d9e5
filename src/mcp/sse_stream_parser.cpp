// Incremental event-stream parsing with event ids and retry delays; see sse_stream_parser.hpp.
#include "mcp/sse_stream_parser.hpp"

namespace keel::mcp {
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

void SseStreamParser::reset_connection() {
  line_.clear();
  skip_lf_ = false;
  at_start_ = true;
  stopped_ = false;
  oversized_ = false;
  has_data_ = false;
  current_ = keel::detail::SseEvent{};
  pending_id_.clear();
  has_pending_id_ = false;
}

bool SseStreamParser::feed(std::string_view bytes, const EventFn& on_event) {
  if (stopped_) return false;
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
      if (line_.size() + current_.data.size() > kMaxEventBytes) {
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

bool SseStreamParser::process_line(std::string_view line, const EventFn& on_event) {
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
    if (current_.data.size() > kMaxEventBytes) {
      oversized_ = true;
      return false;
    }
  } else if (field == "event") {
    current_.event.assign(value);
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) {  // the rules ignore an id holding NUL
      pending_id_.assign(value);
      has_pending_id_ = true;
    }
  } else if (field == "retry") {
    if (std::optional<int64_t> ms = parse_retry(value)) retry_ms_ = ms;
  }
  return true;  // unknown fields are ignored
}

bool SseStreamParser::end_event(const EventFn& on_event) {
  if (has_pending_id_) last_event_id_ = pending_id_;
  has_pending_id_ = false;
  pending_id_.clear();
  if (!has_data_) {
    current_.event.clear();  // an event without data is not dispatched
    return true;
  }
  keel::detail::SseEvent event;
  event.data.swap(current_.data);
  event.event.swap(current_.event);
  event.id = last_event_id_;
  has_data_ = false;
  return on_event(event);
}

}  // namespace keel::mcp
