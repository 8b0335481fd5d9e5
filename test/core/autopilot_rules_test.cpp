// The autopilot's pure decisions: retries back off exponentially up to a cap and stall at the
// limit; the hourly caps hold new work back with a message naming the cap and the spend.
#include <gtest/gtest.h>

#include "keel/core/autopilot_rules.hpp"

namespace keel {
namespace {

TEST(AutopilotRules, RetriesBackOffThenStall) {
  RetryDecision first = decide_retry(0, 3, 10000, 2000, 300000);
  EXPECT_FALSE(first.stalled);
  EXPECT_EQ(first.failures, 1);
  EXPECT_EQ(first.next_attempt_ms, 12000);
  RetryDecision second = decide_retry(1, 3, 10000, 2000, 300000);
  EXPECT_FALSE(second.stalled);
  EXPECT_EQ(second.next_attempt_ms, 14000);
  RetryDecision third = decide_retry(2, 3, 10000, 2000, 300000);
  EXPECT_TRUE(third.stalled);
  EXPECT_EQ(third.failures, 3);
}

TEST(AutopilotRules, BackoffIsCapped) {
  RetryDecision d = decide_retry(40, 100, 0, 1000, 5000);
  EXPECT_FALSE(d.stalled);
  EXPECT_EQ(d.next_attempt_ms, 5000);
  EXPECT_EQ(decide_retry(0, 100, 7, 0, 5000).next_attempt_ms, 7) << "no backoff: at once";
  EXPECT_TRUE(decide_retry(0, 1, 0, 1000, 5000).stalled) << "max_failures 1: the first failure stalls";
  EXPECT_TRUE(decide_retry(0, 0, 0, 1000, 5000).stalled) << "a limit below 1 counts as 1";
}

TEST(AutopilotRules, HourlyGuards) {
  EXPECT_EQ(hourly_cap_guard({}, 1 << 30, 1e9), "") << "no caps, no guard";
  EXPECT_EQ(hourly_cap_guard({1000, 0}, 999, 0), "");
  EXPECT_EQ(hourly_cap_guard({1000, 0}, 1000, 0), "hourly token cap 1000 reached: 1000 tokens in the last hour");
  EXPECT_EQ(hourly_cap_guard({0, 0.5}, 10, 0.5), "hourly cost cap 0.5 reached: 0.5 spent in the last hour");
  EXPECT_EQ(hourly_cap_guard({0, 0.5}, 10, 0.49), "");
}

TEST(AutopilotRules, TakesOnlyFreeWorkers) {
  EXPECT_EQ(observations_to_take(2, 0), 2);
  EXPECT_EQ(observations_to_take(2, 2), 0);
  EXPECT_EQ(observations_to_take(2, 5), 0);
}

}  // namespace
}  // namespace keel
