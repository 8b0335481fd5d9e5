// The retry decisions of the OpenAI-compatible client: which HTTP statuses are transient, how long
// to wait (full-jitter exponential backoff, or the server's Retry-After), and an interruptible
// sleep.
//
// Thread-safety: free functions without shared state; safe from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string_view>

#include "keel/openai_client.hpp"

namespace keel::detail {

// 408, 409, 429 and 500-599: worth another attempt.
bool is_retryable_http_status(long status);

// The upper bound of the wait after failed attempt `attempt` (1-based):
// min(max_delay_ms, initial_delay_ms * multiplier^(attempt-1)), never negative.
int64_t backoff_cap_ms(const RetryOptions& options, int attempt);

// Full jitter: `unit` (uniform in [0, 1]) scaled onto [0, backoff_cap_ms(options, attempt)].
int64_t backoff_delay_ms(const RetryOptions& options, int attempt, double unit);

// A Retry-After header value in milliseconds from `now`: delta-seconds ("1", "2.5") or an
// HTTP date ("Wed, 21 Oct 2015 07:28:00 GMT"; a past date gives 0). nullopt when unparsable.
std::optional<int64_t> parse_retry_after_ms(std::string_view value,
                                            std::chrono::system_clock::time_point now);

// Waits `delay_ms`, waking early when `stop` is requested. Returns false when stopped.
bool sleep_unless_stopped(int64_t delay_ms, const std::stop_token& stop);

}  // namespace keel::detail
