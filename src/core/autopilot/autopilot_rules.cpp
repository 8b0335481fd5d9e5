// The autopilot's pure decisions (keel/core/autopilot_rules.hpp).
#include "keel/core/autopilot_rules.hpp"

#include <algorithm>
#include <cstdio>

namespace keel {

RetryDecision decide_retry(int failures_before, int max_failures, int64_t now_ms, int64_t backoff_ms,
                           int64_t max_backoff_ms) {
  RetryDecision d;
  d.failures = std::max(0, failures_before) + 1;
  if (d.failures >= std::max(1, max_failures)) {
    d.stalled = true;
    return d;
  }
  int64_t delay = std::max<int64_t>(0, backoff_ms);
  const int64_t cap = std::max<int64_t>(0, max_backoff_ms);
  for (int i = 1; i < d.failures && delay < cap; ++i) delay *= 2;
  d.next_attempt_ms = now_ms + std::min(delay, cap);
  return d;
}

std::string hourly_cap_guard(const HourlyCaps& caps, int64_t tokens_last_hour, double cost_last_hour) {
  if (caps.max_tokens > 0 && tokens_last_hour >= caps.max_tokens) {
    return "hourly token cap " + std::to_string(caps.max_tokens) + " reached: " + std::to_string(tokens_last_hour) +
           " tokens in the last hour";
  }
  if (caps.max_cost > 0 && cost_last_hour >= caps.max_cost) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "hourly cost cap %.4g reached: %.4g spent in the last hour", caps.max_cost,
                  cost_last_hour);
    return buf;
  }
  return {};
}

int observations_to_take(int concurrency, int running) {
  return std::max(0, concurrency - running);
}

}  // namespace keel
