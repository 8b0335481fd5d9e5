// Private to api/run_service: the state behind RunService, shared by run_service.cpp (accepting,
// aborting, steering, recovery, shutdown) and run_worker.cpp (executing a run on a worker).
//
// Thread-safety: `mu` guards runs, sessions, every Run's mutable fields and `stopping`.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "api/run_service.hpp"
#include "base/thread_pool.hpp"
#include "keel/store/outage_wait.hpp"

namespace keel::api {

enum class ParkReason { kNone = 0, kApproval = 1, kAnswer = 2, kShutdown = 3 };

struct ActiveRun {
  std::string id;
  std::string session_id;
  std::string task;
  RunSettings settings;
  RunPhase phase = RunPhase::kQueued;
  std::stop_source stop;
  std::atomic<int> park{0};             // a ParkReason; read by the agent's suspend_on_stop
  Agent* agent = nullptr;               // while it executes
  std::vector<std::string> steering;    // guidance waiting for the agent
  bool resume_when_parked = false;      // its answers arrived while it was still stopping
  bool abort_requested = false;
  std::string resumed_because;          // for the run_resumed event; empty: first start
  bool calls_not_started = false;       // parked before its pending calls began (ResumeOptions)
  std::atomic<int> round{0};            // the model call in progress, for events the hooks do not make
  std::chrono::steady_clock::time_point held_since;  // when this instance accepted or claimed it
  bool lost = false;                    // another instance took it over: stop without writing
};

struct RunService::Impl : std::enable_shared_from_this<RunService::Impl> {
  Impl(Store& s, AgentFactory& f, EventLog& e, PendingInput& p, RunServiceOptions o);

  Store& store;
  AgentFactory& factory;
  EventLog& events;
  PendingInput& pending;
  RunServiceOptions options;

  mutable std::mutex mu;
  std::condition_variable idle_cv;     // signalled when a run stops executing
  std::condition_variable retired_cv;  // signalled when a run is retired
  std::unordered_map<std::string, std::shared_ptr<ActiveRun>> runs;   // by run id
  std::unordered_map<std::string, std::string> session_runs;          // session id -> run id
  size_t executing = 0;
  bool stopping = false;
  std::unique_ptr<detail::ThreadPool> pool;
  ServerLease lease;                   // this instance's id and lease length in the run queue
  std::condition_variable_any keeper_cv;  // wakes the keeper (a claim filled every free worker)
  bool claim_again = false;
  // Keeper thread only: when this instance's unbroken contact with the database began (renewals
  // at most a lease apart), and when the last renewal succeeded. An instance that lost contact
  // cannot tell a dead instance from one that could not renew either: it claims no run for a
  // whole lease after contact returns, so the holders renew first.
  std::chrono::steady_clock::time_point in_contact_since{};
  std::chrono::steady_clock::time_point last_renewed{};
  std::jthread keeper;                 // renews leases and takes up runs no one holds (not exclusive)
  std::unique_ptr<StoreWatch> controls_watch;  // what clients of other instances ask of this one's runs

  // Under mu: hands the run to a worker.
  void enqueue_locked(const std::shared_ptr<ActiveRun>& run);
  // The worker's body.
  void execute(const std::shared_ptr<ActiveRun>& run);
  // Under mu: forgets an ended run (maps, pending items, checkpoint).
  void retire_locked(const std::shared_ptr<ActiveRun>& run);
  // Under mu: forgets a run here without touching the store (it ended, or another instance holds it).
  void forget_locked(const std::shared_ptr<ActiveRun>& run);

  // The run queue (run_queue_keeper.cpp).
  // Claims up to `limit` runs no one holds and queues them here; returns how many.
  size_t claim(size_t limit);
  // Extends this instance's leases; runs it no longer holds are stopped without writing.
  void renew();
  // The keeper thread's body.
  void keep(std::stop_token stop);
  // Workers not taken by a queued or running run. Under mu.
  size_t free_workers_locked() const;
  // Another instance holds `run_id` (this one is not alone and does not have it, and it has not
  // ended). Takes mu.
  bool held_elsewhere(const std::string& run_id, const Result<RunRecord>& stored) const;
  // Leaves a control for the instance holding `run_id`.
  Status forward(const std::string& run_id, std::string_view kind, const nlohmann::json& body);
  // Carries out the controls left for `run_id` if it is here ("": for every run here).
  void apply_controls(const std::string& run_id);
  // Abort and steer of a run this instance has.
  Status abort_here(const std::string& run_id, const Result<RunRecord>& stored);
  Status steer_here(const std::string& run_id, const Result<RunRecord>& stored, const std::string& text);
  void note(const std::string& line) const;
  // Ends a run that is not executing as aborted: store, event, retire. Under mu.
  void abort_idle_locked(const std::shared_ptr<ActiveRun>& run, const std::string& why);
  // A run's pending items are all answered.
  void input_ready(const std::string& run_id);
  // ask_user, for runs of this service.
  Result<UserAnswer> ask(const UserQuestion& question, std::stop_token stop);
  // Stops a run to park it for `reason` (from its own worker thread).
  void park(const std::shared_ptr<ActiveRun>& run, ParkReason reason);
  std::shared_ptr<ActiveRun> find(const std::string& run_id) const;
  // Under mu: the active run `run_id` for abort and steer, given its stored record (read before the
  // lock); FailedPrecondition once it has ended, NotFound for no such run.
  Result<std::shared_ptr<ActiveRun>> active_locked(const std::string& run_id, const Result<RunRecord>& stored) const;
  // Publishes a server event for a run, with the envelope of docs/events.md.
  void publish(const ActiveRun& run, std::string_view type, nlohmann::json body);
};

nlohmann::json settings_json(const RunSettings& settings);
RunSettings settings_from_json(const std::string& text);

}  // namespace keel::api
