// What the autopilot tells about itself: the status document it keeps in the store (read by
// `keel autopilot status` and keel serve's /api/autopilot) and the trace spans of a busy cycle.
//
// Thread-safety: used from the autopilot's loop thread only.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keel/autopilot.hpp"
#include "keel/store/records.hpp"

namespace keel::detail {

class AutopilotReport {
 public:
  void add_source(const std::string& name, const std::string& kind);
  // Records source `index`'s poll (`error` empty: it went fine); true when its health changed.
  bool polled(size_t index, int64_t now_ms, const std::string& error);
  void add_cycle(const AutopilotCycleMetrics& m);
  void set_guard(std::string guard) { guard_ = std::move(guard); }
  const std::string& guard() const { return guard_; }
  void set_running(bool running, int64_t now_ms);
  // {running, pid, started_ms, updated_ms, cycles, last_cycle_ms, last_cycle_duration_ms,
  //  observations_seen, deduplicated, processed, failed, proposals, guard, sources: [...]}
  nlohmann::json status_json(int64_t now_ms) const;

 private:
  struct SourceHealth {
    std::string name, kind, error;
    bool ok = true;
    bool polled = false;
    int64_t last_poll_ms = 0;
  };
  std::vector<SourceHealth> sources_;
  bool running_ = false;
  int64_t started_ms_ = 0;
  int64_t cycles_ = 0;
  AutopilotCycleMetrics last_ = {};
  AutopilotCycleMetrics totals_ = {};
  std::string guard_;
};

// An observation as the CLI and the HTTP API show it: id, source, kind, subject, state, failures,
// last_error, result, created_ms, updated_ms (the payload and fingerprint with `details`).
nlohmann::json observation_json(const Observation& o, bool details);

// {"pending": n, "processing": n, "done": n, "dismissed": n, "stalled": n} from
// Store::count_observations() (states it leaves out count 0).
nlohmann::json observation_counts_json(const std::vector<std::pair<ObservationState, int64_t>>& counts);

// The root span of a busy cycle.
SpanRecord cycle_span(const std::string& trace_id, const AutopilotCycleMetrics& m);
// A span of one observation's step (`what`: observed, or the state it moved to).
SpanRecord observation_span(const std::string& trace_id, const Observation& ob, const std::string& what,
                            int64_t start_ms, int64_t duration_ms, const std::string& detail);

}  // namespace keel::detail
