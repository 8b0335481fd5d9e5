// One HTTP transfer's shared state and checks; see http_transfer.hpp.
#include "net/http_transfer.hpp"

#include <string>

#include "net/http_text.hpp"

namespace keel::detail {
namespace {

// Keeps `line` in head.captured when its name is one the request asked for.
void capture(Transfer& t, std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return;
  const std::string_view name = trim_http_blanks(line.substr(0, colon));
  for (const std::string& wanted : t.request->capture_headers) {
    if (equals_lowercase(name, wanted)) {
      t.head.captured.emplace_back(wanted, std::string(trim_http_blanks(line.substr(colon + 1))));
      return;
    }
  }
}

}  // namespace

bool Transfer::should_abort() {
  if (abort != HttpEnd::kCompleted) return true;
  if (request->stop.stop_requested()) {
    abort = HttpEnd::kCancelled;
  } else if (request->idle_timeout_ms > 0 &&
             Clock::now() - last_byte > std::chrono::milliseconds(request->idle_timeout_ms)) {
    abort = HttpEnd::kIdleTimeout;
  } else if (request->still_wanted && !request->still_wanted()) {
    abort = HttpEnd::kAbortedByBody;
  }
  return abort != HttpEnd::kCompleted;
}

bool Transfer::on_header_line(std::string_view raw) {
  last_byte = Clock::now();
  // A folded continuation of the header before: none of the headers keel reads is taken from one.
  if (!raw.empty() && (raw.front() == ' ' || raw.front() == '\t')) return true;
  const std::string_view line = trim_http_blanks(raw);
  if (line.empty()) {  // the end of a head: a final one unless it is 1xx
    if (head.status >= 200 && request->on_head) request->on_head(head);
  } else if (line.starts_with("HTTP/")) {
    head = HttpHead{};  // a new response (after 100 Continue or similar)
    const size_t space = line.find(' ');
    if (space != std::string_view::npos) {
      long status = 0;
      for (size_t i = space + 1; i < line.size() && line[i] >= '0' && line[i] <= '9'; ++i) {
        status = status * 10 + (line[i] - '0');
      }
      head.status = status;
    }
  } else if (starts_with_ascii_icase(line, "content-type:")) {
    head.content_type = std::string(trim_http_blanks(line.substr(13)));
  } else if (starts_with_ascii_icase(line, "retry-after:")) {
    head.retry_after = std::string(trim_http_blanks(line.substr(12)));
  } else if (!request->capture_headers.empty()) {
    capture(*this, line);
  }
  return true;
}

bool Transfer::on_body_bytes(std::string_view data) {
  last_byte = Clock::now();
  if (abort != HttpEnd::kCompleted) return false;
  bool keep_going = true;
  try {
    keep_going = !request->on_body || request->on_body(head, data);
  } catch (...) {
    keep_going = false;  // on_body is keel's own code and does not throw; never let it cross C code
  }
  if (!keep_going) {
    abort = HttpEnd::kAbortedByBody;
    return false;
  }
  return true;
}

bool Transfer::ended_by_keel(HttpOutcome& out) const {
  switch (abort) {
    case HttpEnd::kCancelled:
      out.end = HttpEnd::kCancelled;
      out.error = Status::Cancelled("request to " + request->target + " cancelled");
      return true;
    case HttpEnd::kIdleTimeout:
      out.end = HttpEnd::kIdleTimeout;
      out.error = Status::DeadlineExceeded("no data from " + request->target + " for " +
                                           std::to_string(request->idle_timeout_ms) +
                                           " ms while streaming (stream_idle_timeout_ms)");
      return true;
    case HttpEnd::kAbortedByBody:
      out.end = HttpEnd::kAbortedByBody;
      return true;
    default:
      return false;
  }
}

}  // namespace keel::detail
