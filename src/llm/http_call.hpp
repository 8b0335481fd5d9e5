// What the HTTP model backends (OpenAI-compatible, Anthropic) share around one call: the call's own
// deadline, the request limits an attempt gets from it, and the retry loop with backoff.
//
// Thread-safety: values and free functions; a CallDeadline is not shared between threads.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "keel/llm_client.hpp"
#include "keel/openai_client.hpp"
#include "net/http_transport.hpp"
#include "llm/reply_reader.hpp"

namespace keel::detail {

// CallOptions::timeout_ms as a point in time; inactive when the call has no timeout of its own.
class CallDeadline {
 public:
  explicit CallDeadline(int64_t timeout_ms);
  bool active() const { return timeout_ms_ > 0; }
  // Milliseconds left (at least 1 while time remains, 0 once passed); INT64_MAX when inactive.
  int64_t remaining_ms() const;
  // kDeadlineExceeded naming the timeout and, when there was one, the last attempt's error.
  Status exceeded(const std::string& last_error) const;

 private:
  int64_t timeout_ms_;
  std::chrono::steady_clock::time_point end_;
};

// A backend's configured transport limits, milliseconds (0: none / libcurl's default).
struct HttpCallLimits {
  int64_t connect_timeout_ms = 0;
  int64_t request_timeout_ms = 0;
  int64_t stream_idle_timeout_ms = 0;  // applies to streamed replies only
};

// Sets the request's timeouts from `limits`, shortened to what is left of `deadline`, and its stop
// token from `options`.
void apply_call_limits(HttpRequest& http, const HttpCallLimits& limits, const CallOptions& options,
                       const CallDeadline& deadline);

// Runs `attempt` until it succeeds, fails for good, the attempts are spent (kUnavailable "gave up
// after N attempts: ..."), the deadline passes or the call is stopped. Between attempts it waits
// the server's Retry-After (capped at max_delay_ms) or a full-jitter backoff (`unit` draws from
// [0, 1]), and reports each retry through CallOptions::on_retry.
Result<ModelReply> call_with_retries(const RetryOptions& retry, const CallOptions& options,
                                     const std::function<double()>& unit,
                                     const std::function<AttemptOutcome(const CallDeadline&)>& attempt);

}  // namespace keel::detail
