// server/auth_throttle.hpp — slows down token guessing: a client address that sends too many
// wrong tokens is refused (429) for a while, correct token or not, so guesses cannot go faster
// than max_failures per lockout.
//
// Only wrong tokens count; a request without one does not, so a web page that merely makes the
// browser load a URL cannot lock the user out. Lockouts double for an address that keeps failing
// (up to max_lockout_ms) and are forgotten after a quiet window.
//
// Thread-safety: thread-safe (one mutex).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace keel::server {

struct AuthThrottleOptions {
  int max_failures = 10;           // wrong tokens within window_ms that start a lockout
  int64_t window_ms = 60000;       // failures older than this are forgotten
  int64_t lockout_ms = 30000;      // the first lockout; each further one doubles
  int64_t max_lockout_ms = 15 * 60000;
  size_t max_addresses = 4096;     // addresses tracked; the stalest is dropped beyond this
};

class AuthThrottle {
 public:
  explicit AuthThrottle(AuthThrottleOptions options = {});

  // Milliseconds `address` must still wait (0: it may try now). `now_ms` is a steady clock.
  int64_t wait_ms(std::string_view address, int64_t now_ms);

  // A wrong token from `address`.
  void failed(std::string_view address, int64_t now_ms);

 private:
  struct Entry {
    int64_t window_start_ms = 0;
    int failures = 0;
    int lockouts = 0;
    int64_t locked_until_ms = 0;
    int64_t last_ms = 0;
  };
  void evict_stalest_locked();

  AuthThrottleOptions options_;
  std::mutex mu_;
  std::map<std::string, Entry, std::less<>> entries_;  // guarded by mu_
};

// The address part of "127.0.0.1:5000" / "[::1]:5000": what a throttle keys on.
std::string_view address_without_port(std::string_view remote_address);

}  // namespace keel::server
