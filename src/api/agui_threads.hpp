// api/agui_threads.hpp — which keel session each AG-UI thread continues, and that a thread runs
// one run at a time.
//
// A thread is known by the session its first run stored (bound when that run starts), for as long
// as the server runs; a threadId that is itself the id of a stored session of this server's
// workspace continues that session, also after a restart (a front end that wants its threads to
// outlast the server sends the session id it got in the state snapshot, and `keel chat --session
// ID` goes on with the same conversation). Any other threadId starts a new session, from the
// history its messages carry. A bound session that was deleted is forgotten: the thread starts
// afresh.
//
// A second run on a thread whose run is still going is refused (409) while that run's client is
// connected; a run whose client left (an aborted run) is stopping, and the next run waits for it
// to end (up to `stop_wait`) so that it continues the complete session.
//
//   AguiThreads threads(store, scope);
//   Result<std::unique_ptr<AguiThreadLease>> lease = threads.claim(thread_id, stop);
//   ... (*lease)->session_id() empty: a new session; on_run_started: (*lease)->bind(session_id) ...
//   lease->reset();                                        // the thread is free again
//
// Thread-safety: claim() and the leases may be used from any thread; the store is thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <stop_token>
#include <string>

#include "api/workspace_scope.hpp"
#include "keel/result.hpp"
#include "keel/store/store.hpp"

namespace keel::api {

struct AguiThreadsState;

// One run's hold on its thread; releases it when destroyed.
class AguiThreadLease {
 public:
  AguiThreadLease(std::shared_ptr<AguiThreadsState> state, std::string thread_id, std::string session_id);
  ~AguiThreadLease();
  AguiThreadLease(const AguiThreadLease&) = delete;
  AguiThreadLease& operator=(const AguiThreadLease&) = delete;

  // The stored session the thread continues; empty: the run starts a new one.
  const std::string& session_id() const { return session_id_; }
  // The session the run stored: the thread continues it from now on.
  void bind(const std::string& session_id);

 private:
  std::shared_ptr<AguiThreadsState> state_;
  std::string thread_id_;
  std::string session_id_;
};

class AguiThreads {
 public:
  // `capacity`: threads remembered at most (the least recently used idle ones are forgotten).
  AguiThreads(Store& store, WorkspaceScope scope, size_t capacity = 4096,
              std::chrono::milliseconds stop_wait = std::chrono::seconds(15));

  // Claims `thread_id` for a run whose client's leaving requests `stop`. FailedPrecondition when
  // another run of the thread is going on (or did not stop within stop_wait).
  Result<std::unique_ptr<AguiThreadLease>> claim(const std::string& thread_id, std::stop_token stop);

 private:
  std::shared_ptr<AguiThreadsState> state_;
};

}  // namespace keel::api
