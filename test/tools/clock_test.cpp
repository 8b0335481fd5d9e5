#include "base/clock.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <thread>

namespace keel::detail {
namespace {

using std::chrono::milliseconds;

TEST(ClockTest, WallReadingsAgreeInEveryUnit) {
  const int64_t before = static_cast<int64_t>(std::time(nullptr));
  const int64_t s = wall_now_s();
  const int64_t ms = wall_now_ms();
  const int64_t us = wall_now_us();
  // time() may read the kernel's coarse clock, which trails the precise one by up to a tick: a
  // reading taken after it can already be in the next second.
  const int64_t after = static_cast<int64_t>(std::time(nullptr)) + 1;
  EXPECT_GE(s, before);
  EXPECT_LE(s, after);
  EXPECT_GE(ms / 1000, s);
  EXPECT_LE(ms / 1000, after);
  EXPECT_GE(us / 1000, ms);
  EXPECT_LE(us / 1000000, after);
  EXPECT_GT(s, int64_t{1700000000});  // seconds, not some other unit: after November 2023
}

TEST(ClockTest, MsSinceMeasuresSteadyTime) {
  const SteadyClock::time_point start = SteadyClock::now();
  EXPECT_GE(ms_since(start), 0);
  EXPECT_LT(ms_since(start), 50);
  std::this_thread::sleep_for(milliseconds(30));
  EXPECT_GE(ms_since(start), 30);
  EXPECT_LT(ms_since(SteadyClock::now() + milliseconds(5000)), -4000);  // a start still ahead: negative
}

TEST(ClockTest, DeadlineAfterMsLiesThatFarAhead) {
  const SteadyClock::time_point before = SteadyClock::now();
  const SteadyClock::time_point deadline = deadline_after_ms(250);
  const SteadyClock::time_point after = SteadyClock::now();
  EXPECT_GE(deadline, before + milliseconds(250));
  EXPECT_LE(deadline, after + milliseconds(250));
  const SteadyClock::time_point now_deadline = deadline_after_ms(0);
  EXPECT_LE(now_deadline, SteadyClock::now());
}

}  // namespace
}  // namespace keel::detail
