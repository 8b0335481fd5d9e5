// The autopilot's status document and trace spans (autopilot_report.hpp).
#include "autopilot/autopilot_report.hpp"

#include <unistd.h>

#include "base/random_token.hpp"

namespace keel::detail {

void AutopilotReport::add_source(const std::string& name, const std::string& kind) {
  SourceHealth h;
  h.name = name;
  h.kind = kind;
  sources_.push_back(std::move(h));
}

bool AutopilotReport::polled(size_t index, int64_t now_ms, const std::string& error) {
  if (index >= sources_.size()) return false;
  SourceHealth& h = sources_[index];
  const bool was_ok = h.ok;
  const bool first = !h.polled;
  h.polled = true;
  h.last_poll_ms = now_ms;
  h.ok = error.empty();
  const bool changed = h.error != error;
  h.error = error;
  return first ? !h.ok : (was_ok != h.ok || changed);
}

void AutopilotReport::add_cycle(const AutopilotCycleMetrics& m) {
  cycles_ = m.cycle;
  last_ = m;
  totals_.seen += m.seen;
  totals_.deduplicated += m.deduplicated;
  totals_.processed += m.processed;
  totals_.failed += m.failed;
  totals_.proposals += m.proposals;
}

void AutopilotReport::set_running(bool running, int64_t now_ms) {
  running_ = running;
  if (running && started_ms_ == 0) started_ms_ = now_ms;
}

nlohmann::json AutopilotReport::status_json(int64_t now_ms) const {
  nlohmann::json sources = nlohmann::json::array();
  for (const SourceHealth& h : sources_) {
    sources.push_back({{"name", h.name}, {"kind", h.kind}, {"ok", h.ok}, {"error", h.error},
                       {"last_poll_ms", h.last_poll_ms}});
  }
  return {{"running", running_},
          {"pid", static_cast<int64_t>(::getpid())},
          {"started_ms", started_ms_},
          {"updated_ms", now_ms},
          {"cycles", cycles_},
          {"last_cycle_ms", last_.started_ms},
          {"last_cycle_duration_ms", last_.duration_ms},
          {"observations_seen", totals_.seen},
          {"deduplicated", totals_.deduplicated},
          {"processed", totals_.processed},
          {"failed", totals_.failed},
          {"proposals", totals_.proposals},
          {"guard", guard_},
          {"sources", std::move(sources)}};
}

nlohmann::json observation_json(const Observation& o, bool details) {
  nlohmann::json j = {{"id", o.id},
                      {"source", o.source},
                      {"kind", o.kind},
                      {"subject", o.subject},
                      {"state", std::string(observation_state_name(o.state))},
                      {"failures", o.failures},
                      {"last_error", o.last_error},
                      {"result", o.result},
                      {"created_ms", o.created_ms},
                      {"updated_ms", o.updated_ms}};
  if (details) {
    nlohmann::json payload = nlohmann::json::parse(o.payload, nullptr, false);
    j["fingerprint"] = o.fingerprint;
    j["next_attempt_ms"] = o.next_attempt_ms;
    j["payload"] = payload.is_discarded() ? nlohmann::json(o.payload) : payload;
  }
  return j;
}

nlohmann::json observation_counts_json(const std::vector<std::pair<ObservationState, int64_t>>& counts) {
  nlohmann::json by_state = nlohmann::json::object();
  for (ObservationState s : {ObservationState::kPending, ObservationState::kProcessing, ObservationState::kDone,
                             ObservationState::kDismissed, ObservationState::kStalled}) {
    by_state[std::string(observation_state_name(s))] = 0;
  }
  for (const auto& [state, n] : counts) by_state[std::string(observation_state_name(state))] = n;
  return by_state;
}

SpanRecord cycle_span(const std::string& trace_id, const AutopilotCycleMetrics& m) {
  SpanRecord s;
  s.trace_id = trace_id;
  s.span_id = "cycle";
  s.kind = "autopilot.cycle";
  s.name = "autopilot cycle " + std::to_string(m.cycle);
  s.start_us = m.started_ms * 1000;
  s.duration_us = m.duration_ms * 1000;
  s.status = m.failed > 0 ? "error" : "ok";
  s.attributes = nlohmann::json{{"keel.autopilot.cycle", m.cycle},
                                {"keel.autopilot.seen", m.seen},
                                {"keel.autopilot.deduplicated", m.deduplicated},
                                {"keel.autopilot.processed", m.processed},
                                {"keel.autopilot.failed", m.failed},
                                {"keel.autopilot.proposals", m.proposals}}
                     .dump();
  return s;
}

SpanRecord observation_span(const std::string& trace_id, const Observation& ob, const std::string& what,
                            int64_t start_ms, int64_t duration_ms, const std::string& detail) {
  SpanRecord s;
  s.trace_id = trace_id;
  s.span_id = random_hex(8);
  s.parent_span_id = "cycle";
  s.kind = "autopilot.observation";
  s.name = "observation " + std::to_string(ob.id) + " " + what;
  s.start_us = start_ms * 1000;
  s.duration_us = duration_ms * 1000;
  s.status = what == "stalled" || what == "pending" ? "error" : "ok";
  if (what == "observed") s.status = "ok";
  s.attributes = nlohmann::json{{"keel.observation.id", ob.id},
                                {"keel.observation.source", ob.source},
                                {"keel.observation.kind", ob.kind},
                                {"keel.observation.subject", ob.subject},
                                {"keel.observation.state", what},
                                {"keel.observation.detail", detail}}
                     .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return s;
}

}  // namespace keel::detail
