// api/run_service.hpp — keel serve's runs: accepted messages become stored runs that execute on a
// fixed worker pool; a run that needs a person parks and gives its thread back; answers, steering
// and aborts reach it from any thread; on shutdown every run is checkpointed, and recover() takes
// them up again after a restart.
//
// A run is written to the store (run row, user message, checkpoint) before post_message()
// returns, so an accepted message is never lost; every run, new or resumed, is then driven by
// Agent::resume() from what is stored. Parking uses AgentOptions::suspend_on_stop: the run is
// stopped and stays resumable; its pending approvals and questions live in PendingInput.
//
// Thread-safety: every member may be called from any thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "api/agent_factory.hpp"
#include "api/event_log.hpp"
#include "api/pending_input.hpp"
#include "keel/ask_user.hpp"
#include "keel/result.hpp"
#include "keel/store/store.hpp"

namespace keel::api {

// Where an active run is.
enum class RunPhase { kQueued, kRunning, kWaitingApproval, kWaitingAnswer };
// "queued", "running", "waiting_approval", "waiting_answer".
std::string_view run_phase_name(RunPhase phase);

struct RunServiceOptions {
  size_t workers = 4;               // runs executing at once; the rest wait in order
  std::string workspace;            // recorded on sessions the API creates
  int64_t shutdown_grace_ms = 10000;  // how long shutdown() waits for running runs to checkpoint
  // The run queue (several instances on one database, docs/deploy.md). `exclusive`: this process
  // alone serves the workspace (Store::claim_server said so), so it takes up every run left
  // behind at once and needs no leases; otherwise it holds its runs under leases of lease_ms,
  // renewed every lease_ms / 3, and looks for runs no one holds every claim_interval_ms.
  bool exclusive = true;
  std::string instance;             // this instance's id in the queue; empty: a random one
  int64_t lease_ms = 15000;
  int64_t claim_interval_ms = 500;
  std::function<void(const std::string&)> notice;  // operator messages (a lost lease, a queue error)
};

// An ask_user asker for tool registries built before the service exists: it forwards to the
// service once attached (RunService attaches itself), and fails cleanly before.
class ForwardingAsker final : public UserAsker {
 public:
  using Target = std::function<Result<UserAnswer>(const UserQuestion&, std::stop_token)>;
  void attach(Target target);
  // Questions of run `run_id` go to `target` instead (a run outside the service, e.g. an AG-UI
  // run waiting on its connection) until unroute(run_id).
  void route(const std::string& run_id, Target target);
  void unroute(const std::string& run_id);
  Result<UserAnswer> ask(const UserQuestion& question, std::stop_token stop) override;

 private:
  std::mutex mu_;
  Target target_;
  std::map<std::string, Target> routes_;
};

class RunService {
 public:
  // Everything passed must outlive the service. `asker` (may be null) is the one registered as
  // ask_user's asker in the factory's tools; the service answers it.
  RunService(Store& store, AgentFactory& factory, EventLog& events, PendingInput& pending,
             std::shared_ptr<ForwardingAsker> asker, RunServiceOptions options);
  ~RunService();  // shutdown()
  RunService(const RunService&) = delete;
  RunService& operator=(const RunService&) = delete;

  // Checks `settings` against the factory's profiles: InvalidArgument naming the problem.
  Status validate(const RunSettings& settings) const;

  // Accepts a user message for a session: stores the run, the message and a checkpoint, and
  // queues the run. Returns its id. Errors: NotFound (no such session), FailedPrecondition
  // when the session already has an active run (its id goes to *busy_run), InvalidArgument for
  // bad settings, Unavailable while shutting down, or the store's error (nothing is queued then).
  Result<std::string> post_message(const std::string& session_id, const std::string& content,
                                   const RunSettings& settings, std::string* busy_run = nullptr);
  // Aborts an active run. NotFound for an unknown run; FailedPrecondition for one that has ended.
  Status abort(const std::string& run_id);
  // Queues guidance for an active run (Agent::steer; kept until a parked or queued run goes on).
  Status steer(const std::string& run_id, const std::string& text);

  // For an approval or question id ("RUN_ID:CALL_ID") this instance does not know: when another
  // instance holds that run, leaves `kind` ("decide" or "answer") with `body` for it. NotFound
  // otherwise. (Aborts and steering of such runs go the same way, inside abort() and steer().)
  Status forward_input(const std::string& item_id, std::string_view kind, const nlohmann::json& body);

  std::optional<RunPhase> phase(const std::string& run_id) const;
  std::optional<std::string> active_run(const std::string& session_id) const;
  size_t active_count() const;
  size_t queued_count() const;
  size_t workers() const;
  bool stopping() const;  // shutdown() has begun: new runs are refused
  bool shares_queue() const;  // other instances serve the workspace from the same database
  const std::string& workspace() const;

  // Takes up the runs of this service's workspace left behind (after a restart): every one when
  // the service is exclusive, else those its own instance id held and those no live lease holds,
  // up to the free workers; other workspaces' runs are left alone. Returns how many. From then on
  // a service that is not exclusive keeps renewing its leases and taking up runs other
  // instances left (they stopped, or died and their leases ran out).
  Result<size_t> recover();
  // This instance's id in the run queue.
  const std::string& instance() const;
  // Stops taking messages, checkpoints running runs (they stop and stay resumable) and waits for
  // them up to shutdown_grace_ms. Idempotent.
  void shutdown();

  struct Impl;  // the service's state, for src/api/run_*.cpp only

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace keel::api
