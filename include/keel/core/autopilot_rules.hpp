// keel/core/autopilot_rules.hpp — the decisions of the autopilot's loop that do not depend on
// where it runs: what a failure does to an observation (retry later or stall), whether the
// hourly budget lets new work start, and how much new work one cycle may take. Pure functions;
// the same in every host.
#pragma once

#include <cstdint>
#include <string>

namespace keel {

// What becomes of an observation after a failed attempt.
struct RetryDecision {
  bool stalled = false;         // too many consecutive failures: no more attempts
  int failures = 0;             // consecutive failures counting this one
  int64_t next_attempt_ms = 0;  // not stalled: the earliest time of the next attempt
};

// `failures_before` consecutive failures preceded this one. At `max_failures` (>= 1) the
// observation stalls; before that it waits backoff_ms * 2^(failures-1), at most max_backoff_ms.
RetryDecision decide_retry(int failures_before, int max_failures, int64_t now_ms, int64_t backoff_ms,
                           int64_t max_backoff_ms);

// Caps on the model usage of one hour (0: no cap).
struct HourlyCaps {
  int64_t max_tokens = 0;
  double max_cost = 0;
};

// Empty when new work may start, given what the last hour spent; otherwise the guard's message,
// naming the cap and the spend (e.g. "hourly token cap 20000 reached: 20510 tokens in the last hour").
std::string hourly_cap_guard(const HourlyCaps& caps, int64_t tokens_last_hour, double cost_last_hour);

// How many more observations to take this cycle: free workers, never negative.
int observations_to_take(int concurrency, int running);

}  // namespace keel
