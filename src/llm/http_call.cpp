#include "llm/http_call.hpp"

#include <algorithm>
#include <limits>

#include "base/clock.hpp"
#include "llm/retry_policy.hpp"

namespace keel::detail {

CallDeadline::CallDeadline(int64_t timeout_ms)
    : timeout_ms_(timeout_ms), end_(deadline_after_ms(timeout_ms)) {}

int64_t CallDeadline::remaining_ms() const {
  if (!active()) return std::numeric_limits<int64_t>::max();
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(end_ - std::chrono::steady_clock::now());
  return std::max<int64_t>(0, left.count());
}

Status CallDeadline::exceeded(const std::string& last_error) const {
  std::string message = "the call's timeout of " + std::to_string(timeout_ms_) + " ms passed";
  if (!last_error.empty()) {
    message += " before a retry could succeed; last error: ";
    message += last_error;
  }
  return Status::DeadlineExceeded(std::move(message));
}

void apply_call_limits(HttpRequest& http, const HttpCallLimits& limits, const CallOptions& options,
                       const CallDeadline& deadline) {
  http.connect_timeout_ms = limits.connect_timeout_ms;
  http.total_timeout_ms = limits.request_timeout_ms;
  if (deadline.active()) {
    const int64_t remaining = deadline.remaining_ms();
    if (http.total_timeout_ms == 0 || remaining < http.total_timeout_ms) {
      http.total_timeout_ms = remaining;
      http.total_timeout_name = "the call's timeout_ms";
    }
    if (http.connect_timeout_ms == 0 || remaining < http.connect_timeout_ms) http.connect_timeout_ms = remaining;
  }
  http.idle_timeout_ms = options.stream ? limits.stream_idle_timeout_ms : 0;
  http.stop = options.stop;
}

Result<ModelReply> call_with_retries(const RetryOptions& retry, const CallOptions& options,
                                     const std::function<double()>& unit,
                                     const std::function<AttemptOutcome(const CallDeadline&)>& attempt) {
  const int max_attempts = std::max(1, retry.max_attempts);
  const CallDeadline deadline(options.timeout_ms);
  for (int n = 1;; ++n) {
    if (options.stop.stop_requested()) return Status::Cancelled("request cancelled before it was sent");
    if (deadline.remaining_ms() == 0) return deadline.exceeded("");
    AttemptOutcome outcome = attempt(deadline);
    if (outcome.reply.ok() || !outcome.retryable) return std::move(outcome.reply);
    const Status why = outcome.reply.status();
    if (n >= max_attempts) {
      std::string message = "gave up after " + std::to_string(n);
      message += n == 1 ? " attempt: " : " attempts: ";
      message += why.message();
      return Status::Unavailable(std::move(message));
    }
    const int64_t delay = outcome.retry_after_ms ? std::min(*outcome.retry_after_ms, retry.max_delay_ms)
                                                 : backoff_delay_ms(retry, n, unit());
    if (deadline.active() && delay >= deadline.remaining_ms()) return deadline.exceeded(why.message());
    if (options.on_retry) {
      try {
        options.on_retry(n, why, delay);
      } catch (...) {
        return Status::Internal("the on_retry callback threw");
      }
    }
    if (!sleep_unless_stopped(delay, options.stop)) {
      return Status::Cancelled("cancelled while waiting to retry after: " + why.message());
    }
  }
}

}  // namespace keel::detail
