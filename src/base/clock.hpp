// base/clock.hpp — the clock readings of the layers above the core (the core never reads a clock:
// it is given times). Wall-clock readings are for what is stored or shown (trace spans, records,
// API timestamps); the steady clock is for durations and deadlines, which must not jump when the
// system time is set.
//
// Thread-safety: free functions without state; safe from any thread.
#pragma once

#include <chrono>
#include <cstdint>

namespace keel::detail {

using SteadyClock = std::chrono::steady_clock;

// Whole seconds since the Unix epoch, now (system clock).
inline int64_t wall_now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Milliseconds since the Unix epoch, now (system clock).
inline int64_t wall_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Microseconds since the Unix epoch, now (system clock): the trace clock.
inline int64_t wall_now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Whole milliseconds the steady clock has advanced since `start`.
inline int64_t ms_since(SteadyClock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - start).count();
}

// The steady time `timeout_ms` milliseconds from now: a deadline for a setting given in ms.
inline SteadyClock::time_point deadline_after_ms(int64_t timeout_ms) {
  return SteadyClock::now() + std::chrono::milliseconds(timeout_ms);
}

}  // namespace keel::detail
