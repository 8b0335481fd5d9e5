// Retry decisions and waits; see retry_policy.hpp.
#include "llm/retry_policy.hpp"

#include "net/curl_library.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <string>

namespace keel::detail {

bool is_retryable_http_status(long status) {
  return status == 408 || status == 409 || status == 429 || (status >= 500 && status <= 599);
}

int64_t backoff_cap_ms(const RetryOptions& options, int attempt) {
  const double initial = static_cast<double>(std::max<int64_t>(0, options.initial_delay_ms));
  const double max_delay = static_cast<double>(std::max<int64_t>(0, options.max_delay_ms));
  const double multiplier = std::max(1.0, options.multiplier);
  const int exponent = std::max(0, attempt - 1);
  // pow() overflows to +inf for large exponents; min() then picks max_delay.
  const double cap = std::min(max_delay, initial * std::pow(multiplier, exponent));
  return static_cast<int64_t>(cap);
}

int64_t backoff_delay_ms(const RetryOptions& options, int attempt, double unit) {
  const double u = std::clamp(unit, 0.0, 1.0);
  return static_cast<int64_t>(std::llround(u * static_cast<double>(backoff_cap_ms(options, attempt))));
}

std::optional<int64_t> parse_retry_after_ms(std::string_view value,
                                            std::chrono::system_clock::time_point now) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  if (value.empty()) return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; })) {
    double seconds = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec != std::errc() || end != value.data() + value.size() || !(seconds >= 0)) return std::nullopt;
    constexpr double kMaxSeconds = 1e9;  // keeps the conversion below defined
    return static_cast<int64_t>(std::llround(std::min(seconds, kMaxSeconds) * 1000.0));
  }
  const std::string text(value);
  const time_t when = curl().curl_getdate(text.c_str(), nullptr);
  if (when == -1) return std::nullopt;
  const auto delta = std::chrono::system_clock::from_time_t(when) - now;
  return std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::milliseconds>(delta).count());
}

bool sleep_unless_stopped(int64_t delay_ms, const std::stop_token& stop) {
  if (stop.stop_requested()) return false;
  if (delay_ms <= 0) return true;
  std::mutex mutex;
  std::condition_variable_any cv;
  std::unique_lock lock(mutex);
  cv.wait_for(lock, stop, std::chrono::milliseconds(delay_ms), [] { return false; });
  return !stop.stop_requested();
}

}  // namespace keel::detail
