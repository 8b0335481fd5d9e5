#include "keel/store/outage_wait.hpp"

#include <atomic>

namespace keel {
namespace {

thread_local bool t_outage_wait = true;
std::atomic<bool> g_stopping{false};

}  // namespace

void set_store_outage_wait_on_this_thread(bool allowed) {
  t_outage_wait = allowed;
}

bool store_outage_wait_on_this_thread() {
  return t_outage_wait && !g_stopping.load(std::memory_order_relaxed);
}

StoreOutageWaitOff::StoreOutageWaitOff() : was_(t_outage_wait) {
  t_outage_wait = false;
}

StoreOutageWaitOff::~StoreOutageWaitOff() {
  t_outage_wait = was_;
}

void stop_store_outage_waits() {
  g_stopping = true;
}

}  // namespace keel
