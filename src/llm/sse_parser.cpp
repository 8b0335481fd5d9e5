// Incremental text/event-stream parsing; see sse_parser.hpp.
#include "llm/sse_parser.hpp"

namespace keel::detail {

bool SseParser::feed(std::string_view bytes, const EventFn& on_event) {
  if (stopped_) return false;
  bytes_seen_ += bytes.size();
  if (at_start_ && !bytes.empty()) {
    // A byte-order mark may only appear at the very start; it can itself arrive split.
    static constexpr std::string_view kBom = "\xEF\xBB\xBF";
    std::string_view probe = bytes.substr(0, kBom.size() - line_.size());
    if (kBom.substr(line_.size()).starts_with(probe)) {
      line_.append(probe);
      bytes.remove_prefix(probe.size());
      if (line_.size() < kBom.size()) return true;  // still undecided
      line_.clear();
      at_start_ = false;
    } else {
      at_start_ = false;  // line_ holds a partial BOM prefix that was not a BOM: keep it as text
    }
  }
  if (skip_lf_ && !bytes.empty()) {
    if (bytes.front() == '\n') bytes.remove_prefix(1);
    skip_lf_ = false;
  }
  while (!bytes.empty()) {
    const size_t end = bytes.find_first_of("\r\n");
    if (end == std::string_view::npos) {
      line_.append(bytes);
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
  if (has_data_ && !dispatch(on_event)) {
    stopped_ = true;
    return false;
  }
  return true;
}

bool SseParser::process_line(std::string_view line, const EventFn& on_event) {
  if (line.empty()) {
    if (has_data_) return dispatch(on_event);
    current_.event.clear();  // an event without data is not dispatched
    return true;
  }
  if (line.front() == ':') return true;  // comment, e.g. ": keep-alive"
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
  } else if (field == "event") {
    current_.event.assign(value);
  } else if (field == "id") {
    current_.id.assign(value);
  }
  // "retry" and unknown fields are ignored.
  return true;
}

bool SseParser::dispatch(const EventFn& on_event) {
  SseEvent event;
  event.data.swap(current_.data);
  event.event.swap(current_.event);
  event.id = current_.id;  // the last event id persists across events
  has_data_ = false;
  current_.event.clear();
  return on_event(event);
}

}  // namespace keel::detail
