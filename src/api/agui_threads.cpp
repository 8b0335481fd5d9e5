#include "api/agui_threads.hpp"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "core/text/text_util.hpp"

namespace keel::api {

struct AguiThreadsState {
  struct Entry {
    std::string session_id;    // empty: not bound yet
    bool busy = false;         // a run holds the thread
    std::stop_token run_stop;  // that run's: requested when its client left
    uint64_t used = 0;
  };

  AguiThreadsState(Store& s, WorkspaceScope sc, size_t cap, std::chrono::milliseconds wait)
      : store(s), scope(std::move(sc)), capacity(cap), stop_wait(wait) {}

  // Forgets the least recently used idle threads beyond the capacity. Under mu.
  void evict() {
    while (entries.size() > capacity) {
      auto oldest = entries.end();
      for (auto it = entries.begin(); it != entries.end(); ++it) {
        if (!it->second.busy && (oldest == entries.end() || it->second.used < oldest->second.used)) oldest = it;
      }
      if (oldest == entries.end()) return;
      entries.erase(oldest);
    }
  }

  Store& store;
  WorkspaceScope scope;
  size_t capacity;
  std::chrono::milliseconds stop_wait;
  std::mutex mu;
  std::condition_variable cv;
  std::unordered_map<std::string, Entry> entries;
  uint64_t tick = 0;
};

AguiThreadLease::AguiThreadLease(std::shared_ptr<AguiThreadsState> state, std::string thread_id, std::string session_id)
    : state_(std::move(state)), thread_id_(std::move(thread_id)), session_id_(std::move(session_id)) {}

AguiThreadLease::~AguiThreadLease() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    auto it = state_->entries.find(thread_id_);
    if (it != state_->entries.end()) {
      it->second.busy = false;
      it->second.used = ++state_->tick;
    }
  }
  state_->cv.notify_all();
}

void AguiThreadLease::bind(const std::string& session_id) {
  session_id_ = session_id;
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->entries[thread_id_].session_id = session_id;
}

AguiThreads::AguiThreads(Store& store, WorkspaceScope scope, size_t capacity, std::chrono::milliseconds stop_wait)
    : state_(std::make_shared<AguiThreadsState>(store, std::move(scope), capacity, stop_wait)) {}

Result<std::unique_ptr<AguiThreadLease>> AguiThreads::claim(const std::string& thread_id, std::stop_token stop) {
  AguiThreadsState& s = *state_;
  std::string session;
  {
    std::unique_lock<std::mutex> lock(s.mu);
    const auto deadline = std::chrono::steady_clock::now() + s.stop_wait;
    for (;;) {
      auto it = s.entries.find(thread_id);
      if (it == s.entries.end() || !it->second.busy) break;
      if (!it->second.run_stop.stop_requested()) {
        return Status::FailedPrecondition(
            detail::concat({"thread '", thread_id,
                            "' has a run in progress; wait for it to finish, or abort it, before the next run"}));
      }
      if (stop.stop_requested()) return Status::Cancelled("the client left while its thread's last run was stopping");
      if (s.cv.wait_until(lock, deadline) == std::cv_status::timeout) {
        it = s.entries.find(thread_id);
        if (it != s.entries.end() && it->second.busy) {
          return Status::FailedPrecondition(
              detail::concat({"thread '", thread_id, "' is still stopping its last run; try again shortly"}));
        }
      }
    }
    AguiThreadsState::Entry& entry = s.entries[thread_id];
    entry.busy = true;
    entry.run_stop = stop;
    entry.used = ++s.tick;
    session = entry.session_id;
    s.evict();
  }
  // Store reads outside the lock: the thread is ours now.
  if (!session.empty() && !s.scope.owns_session(s.store, session)) session.clear();  // deleted since
  if (session.empty() && s.scope.owns_session(s.store, thread_id)) session = thread_id;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.entries[thread_id].session_id = session;
  }
  return std::make_unique<AguiThreadLease>(state_, thread_id, session);
}

}  // namespace keel::api
