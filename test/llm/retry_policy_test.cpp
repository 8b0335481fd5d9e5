// Retry policy: retryable statuses, full-jitter bounds, Retry-After parsing, interruptible sleep.
#include "llm/retry_policy.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace keel::detail {
namespace {

TEST(RetryPolicyTest, RetryableStatuses) {
  for (long s : {408L, 409L, 429L, 500L, 502L, 503L, 599L}) EXPECT_TRUE(is_retryable_http_status(s)) << s;
  for (long s : {200L, 400L, 401L, 403L, 404L, 422L, 600L}) EXPECT_FALSE(is_retryable_http_status(s)) << s;
}

TEST(RetryPolicyTest, BackoffCapGrowsAndIsBounded) {
  RetryOptions o;  // 500 ms, x2, max 20 s
  EXPECT_EQ(backoff_cap_ms(o, 1), 500);
  EXPECT_EQ(backoff_cap_ms(o, 2), 1000);
  EXPECT_EQ(backoff_cap_ms(o, 3), 2000);
  EXPECT_EQ(backoff_cap_ms(o, 10), 20000);
  EXPECT_EQ(backoff_cap_ms(o, 5000), 20000);  // no overflow
}

TEST(RetryPolicyTest, FullJitterSpansZeroToCap) {
  RetryOptions o;
  EXPECT_EQ(backoff_delay_ms(o, 3, 0.0), 0);
  EXPECT_EQ(backoff_delay_ms(o, 3, 1.0), 2000);
  EXPECT_EQ(backoff_delay_ms(o, 3, 0.5), 1000);
  EXPECT_EQ(backoff_delay_ms(o, 3, 7.0), 2000);  // clamped
}

TEST(RetryPolicyTest, RetryAfterSecondsAndDates) {
  const auto now = std::chrono::system_clock::from_time_t(1445412480);  // Wed, 21 Oct 2015 07:28:00 GMT
  EXPECT_EQ(parse_retry_after_ms("1", now), 1000);
  EXPECT_EQ(parse_retry_after_ms(" 2.5 ", now), 2500);
  EXPECT_EQ(parse_retry_after_ms("0", now), 0);
  EXPECT_EQ(parse_retry_after_ms("Wed, 21 Oct 2015 07:28:30 GMT", now), 30000);
  EXPECT_EQ(parse_retry_after_ms("Wed, 21 Oct 2015 07:00:00 GMT", now), 0);  // in the past
  EXPECT_FALSE(parse_retry_after_ms("", now).has_value());
  EXPECT_FALSE(parse_retry_after_ms("soon", now).has_value());
  EXPECT_FALSE(parse_retry_after_ms("1.2.3", now).has_value());
}

TEST(RetryPolicyTest, SleepWakesOnStop) {
  std::stop_source source;
  std::jthread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    source.request_stop();
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(sleep_unless_stopped(5000, source.get_token()));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
  EXPECT_TRUE(sleep_unless_stopped(5, std::stop_token()));
}

}  // namespace
}  // namespace keel::detail
