// Lockouts after repeated wrong tokens; see auth_throttle.hpp.
#include "server/auth_throttle.hpp"

#include <algorithm>

namespace keel::server {

AuthThrottle::AuthThrottle(AuthThrottleOptions options) : options_(options) {}

int64_t AuthThrottle::wait_ms(std::string_view address, int64_t now_ms) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(address);
  if (it == entries_.end()) return 0;
  return std::max<int64_t>(0, it->second.locked_until_ms - now_ms);
}

void AuthThrottle::failed(std::string_view address, int64_t now_ms) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(address);
  if (it == entries_.end()) {
    if (entries_.size() >= options_.max_addresses) evict_stalest_locked();
    it = entries_.emplace(std::string(address), Entry{}).first;
    it->second.window_start_ms = now_ms;
  }
  Entry& e = it->second;
  if (now_ms - e.last_ms > options_.max_lockout_ms) e.lockouts = 0;  // quiet long enough: start over
  if (now_ms - e.window_start_ms > options_.window_ms) {
    e.window_start_ms = now_ms;
    e.failures = 0;
  }
  e.last_ms = now_ms;
  if (++e.failures < options_.max_failures) return;
  int64_t lockout = options_.lockout_ms;
  for (int i = 0; i < e.lockouts && lockout < options_.max_lockout_ms; ++i) lockout *= 2;
  e.locked_until_ms = now_ms + std::min(lockout, options_.max_lockout_ms);
  ++e.lockouts;
  e.failures = 0;
  e.window_start_ms = now_ms;
}

void AuthThrottle::evict_stalest_locked() {
  auto stalest = std::min_element(entries_.begin(), entries_.end(),
                                  [](const auto& a, const auto& b) { return a.second.last_ms < b.second.last_ms; });
  if (stalest != entries_.end()) entries_.erase(stalest);
}

std::string_view address_without_port(std::string_view remote_address) {
  if (!remote_address.empty() && remote_address.front() == '[') {
    const size_t close = remote_address.find(']');
    return close == std::string_view::npos ? remote_address : remote_address.substr(0, close + 1);
  }
  const size_t colon = remote_address.rfind(':');
  return colon == std::string_view::npos ? remote_address : remote_address.substr(0, colon);
}

}  // namespace keel::server
