// keel/autopilot.hpp — the observe → plan → act loop (seed 002): sources notice things (files,
// a schedule, a feed, commits, an MCP resource), each noticed thing becomes an observation unique
// by its fingerprint, and every cycle takes the due ones to the triggers (executable skills or an
// agent task). Skills whose action needs a person queue proposals (`keel skills proposals`); an
// approved proposal is carried out once.
//
//   KEEL_ASSIGN_OR_RETURN(auto pilot, keel::Autopilot::create(std::move(options)));
//   pilot->run(stop);      // cycles every interval until stop; `keel autopilot run`
//
// Lifecycle: pending → processing → done | dismissed (what it saw is gone) | pending again after
// a failure, with backoff | stalled after max_failures consecutive failures. Every transition is
// an event and a trace span; the store keeps every state, so a restart repeats no finished work
// and loses none (observations left processing by a crash go back to pending).
//
// Bounds: the cycle interval, `concurrency` observations at once, the backoff, and the hourly and
// per-run caps on tokens and cost (keel/core/autopilot_rules.hpp), which fire as visible guards.
//
// Thread-safety: run() on one thread; stop it through its stop token.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "keel/autopilot_config.hpp"
#include "keel/result.hpp"
#include "keel/store/store.hpp"

namespace keel {

// The counters of one cycle (seed 002's AgentCycleResult), and the running totals.
struct AutopilotCycleMetrics {
  int64_t cycle = 0;         // 1, 2, ... since start
  int64_t started_ms = 0;
  int64_t duration_ms = 0;
  int seen = 0;              // findings the sources reported
  int deduplicated = 0;      // of those, already stored
  int processed = 0;         // observations that finished (done or dismissed)
  int failed = 0;            // attempts that failed (retried later or stalled)
  int proposals = 0;         // proposals queued by the finished observations
};

struct AutopilotEvent {
  enum class Kind {
    kObserved,       // a new observation was stored (observation_id, subject)
    kDeduplicated,   // a finding was already stored (subject)
    kTransition,     // an observation changed state (state, detail)
    kSourceError,    // a source failed to poll (detail); the others go on
    kSourceOk,       // a source that had failed polled fine again
    kGuard,          // a budget guard started (detail) or stopped (detail empty) holding work back
    kCycle,          // a cycle that did something ended (cycle)
  };
  Kind kind = Kind::kCycle;
  int64_t at_ms = 0;
  std::string source = {};
  int64_t observation_id = 0;
  std::string subject = {};
  std::string state = {};    // kTransition: the new state's name
  std::string detail = {};
  AutopilotCycleMetrics cycle = {};
};

// "observed", "deduplicated", "transition", "source_error", "source_ok", "guard", "cycle".
std::string_view autopilot_event_name(AutopilotEvent::Kind kind);

// What processing one observation came to.
struct ObservationOutcome {
  enum class Kind { kDone, kDismissed, kFailed };
  Kind kind = Kind::kFailed;
  std::string result = {};   // kDone: what came of it; kDismissed: why
  std::string error = {};    // kFailed: why, one line
  int proposals = 0;         // proposals queued
  int64_t tokens = 0;        // model tokens spent
  double cost = 0;           // their cost (0 without a price)
  std::string trace_id = {}; // the skill run's or agent run's id, for the observation's span
};

// Carries out one observation for its trigger (built by the host: skills or an agent task).
// Called on worker threads, several at once; must honour `stop`.
using ObservationWork = std::function<ObservationOutcome(const Observation& observation,
                                                         const AutopilotTriggerConfig& trigger, std::stop_token stop)>;

// The MCP resources mcp sources watch, through the host's MCP servers. A source reads its resource,
// then subscribes (resources/subscribe); while subscribed it reads again when the server says the
// resource changed (notifications/resources/updated), and once a minute in case a notification was
// lost; a server without subscriptions is polled every every_ms.
class McpResourceWatch {
 public:
  virtual ~McpResourceWatch() = default;
  // The resource's content: its text parts joined (blobs as their base64).
  virtual Result<std::string> read(const std::string& server, const std::string& uri, int64_t timeout_ms,
                                   std::stop_token stop) = 0;
  // Subscribes to updates of `uri`; false when the server does not offer subscriptions or refused.
  virtual bool subscribe(const std::string& server, const std::string& uri, std::stop_token stop) = 0;
  // True (once) when an update of (server, uri) arrived since the last call.
  virtual bool take_update(const std::string& server, const std::string& uri) = 0;
  // Becomes readable when an update arrives, to wake the autopilot; -1: none.
  virtual int wake_fd() const { return -1; }
};

struct AutopilotOptions {
  AutopilotConfig config;
  std::string workspace;                  // absolute; observations and status are kept under it
  Store* store = nullptr;                 // required; must outlive the autopilot
  ObservationWork work = nullptr;         // required
  std::shared_ptr<McpResourceWatch> mcp_resources = nullptr;  // unset: mcp sources say they cannot run here
  std::function<void(const AutopilotEvent&)> on_event = nullptr;  // on run()'s thread
  std::function<void(std::vector<SpanRecord>)> export_spans = nullptr;  // e.g. to OTLP; after each busy cycle
  std::function<int64_t()> now_ms = nullptr;  // unset: the system clock
};

// The status document the autopilot keeps in the store (Store::get_daemon_status(workspace,
// kAutopilotStatusName)): running, updated_ms, cycles, last cycle, totals, guard, sources.
inline constexpr const char* kAutopilotStatusName = "autopilot";

class Autopilot {
 public:
  // Checks the options and builds the sources (a source that cannot start reports its error when
  // polled; it does not fail create). InvalidArgument without a store, a work function, any
  // source or any trigger.
  static Result<std::unique_ptr<Autopilot>> create(AutopilotOptions options);
  ~Autopilot();
  Autopilot(const Autopilot&) = delete;
  Autopilot& operator=(const Autopilot&) = delete;

  // Cycles until `stop`, then waits for the observations in progress (they are asked to stop and
  // go back to pending). A source's file events wake a cycle early.
  Status run(std::stop_token stop);
  // One cycle: poll the sources that are due, store findings, start due observations, collect
  // those that finished. With `wait`, also waits for everything it started. For tests and --once.
  Result<AutopilotCycleMetrics> cycle(bool wait, std::stop_token stop = {});
  // One cycle that waits for what it started, then records the autopilot as stopped (--once).
  Result<AutopilotCycleMetrics> run_once(std::stop_token stop = {});

 private:
  class Impl;
  explicit Autopilot(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace keel
