// keel/store/outage_wait.hpp — whether store calls made on the calling thread may wait for a
// restarting database (PostgresStoreOptions::reconnect_wait_ms) or fail at once.
//
// Runs and background work wait: they pause through a restart and go on. A thread that must stay
// responsive — an HTTP server's io thread, where one waiting call would hold up every client —
// turns waiting off, so its calls fail at once with Unavailable naming the database (HTTP 503).
//
// Thread-safety: the setting is the calling thread's own.
#pragma once

namespace keel {

// On by default for every thread.
void set_store_outage_wait_on_this_thread(bool allowed);
// False on a thread that turned waiting off, and everywhere once the process is stopping.
bool store_outage_wait_on_this_thread();
// Turns waiting off on every thread for good, calls already waiting included: a stopping server
// saves what it can and goes, rather than wait for a database that may not come back.
void stop_store_outage_waits();

// Turns waiting off on the calling thread while it lives: for store calls made while holding a
// lock that a responsive thread may need.
class StoreOutageWaitOff {
 public:
  StoreOutageWaitOff();
  ~StoreOutageWaitOff();
  StoreOutageWaitOff(const StoreOutageWaitOff&) = delete;
  StoreOutageWaitOff& operator=(const StoreOutageWaitOff&) = delete;

 private:
  bool was_;
};

}  // namespace keel
