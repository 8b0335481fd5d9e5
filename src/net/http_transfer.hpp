// net/http_transfer.hpp — the state of one HTTP transfer that both of HttpSession's ways of sending
// (libcurl, and keel's own HTTP/1.1 client for plain http:// to an address) share: the response
// head as its lines arrive, the body handed to the caller, and the checks (stop request, idle
// timeout, a reader that has what it needs) that end a transfer early. Both ways read the same
// lines and bytes through it, so a caller cannot tell which one carried its request.
//
// Thread-safety: a Transfer belongs to the thread running the request.
#pragma once

#include <chrono>
#include <string_view>

#include "net/http_transport.hpp"

namespace keel::detail {

struct Transfer {
  using Clock = std::chrono::steady_clock;

  const HttpRequest* request = nullptr;
  HttpHead head;
  Clock::time_point last_byte;
  HttpEnd abort = HttpEnd::kCompleted;  // set when keel decides to stop the transfer

  explicit Transfer(const HttpRequest& r) : request(&r), last_byte(Clock::now()) {}

  // Checks the stop token, the idle timeout and still_wanted; records why when the transfer must
  // end (true).
  bool should_abort();
  // One header line of the response, CRLF included: a status line starts a new head, the empty
  // line ends one (on_head is told about a final head).
  bool on_header_line(std::string_view raw);
  // Body bytes: handed to on_body; false (kAbortedByBody) when it refuses them or throws.
  bool on_body_bytes(std::string_view data);
  // When keel itself ended the transfer (a stop request, the idle timeout, the body's reader),
  // fills `out` with that end and its error and returns true; false otherwise.
  bool ended_by_keel(HttpOutcome& out) const;
};

}  // namespace keel::detail
