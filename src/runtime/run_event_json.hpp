// runtime/run_event_json.hpp — a run's hooks as the JSON events of `keel run --json`
// (docs/events.md). Hosts give a sink: the CLI writes each as a line, keel serve streams and
// stores them. One place builds the bodies, so every host speaks the same schema.
//
// Thread-safety: the agent calls hooks one at a time; the sink is called from those calls.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string_view>

#include "keel/hooks.hpp"

namespace keel::detail {

// The exit code keel uses for an outcome: 0 answer, 3 run failed, 4 backend error, 130 aborted.
int exit_code_for(const RunOutcome& outcome);

class RunEventJson : public Hooks {
 public:
  // Receives each event's type and body (without the envelope: v, type, run_id, round, t_ms);
  // `ctx` is the run's context.
  using Sink = std::function<void(std::string_view type, nlohmann::json body, const RunContext* ctx)>;
  // With `stream_deltas` false, model_delta and reasoning_delta events are left out.
  RunEventJson(Sink sink, bool stream_deltas);

  void on_run_started(RunContext&) override;
  void on_user_message(RunContext&, const Message&) override;
  void on_context(RunContext&, const TokenBreakdown& tokens, size_t context_window) override;
  void on_compaction(RunContext&, const CompactionReport& report) override;
  void on_model_delta(RunContext&, std::string_view text) override;
  void on_reasoning_delta(RunContext&, std::string_view text) override;
  void on_call_announced(RunContext&, std::string_view name) override;
  void on_model_retry(RunContext&, int attempt, const Status& why, int64_t delay_ms) override;
  void on_model_reply(RunContext&, const ModelReply&) override;
  void on_tool_call(RunContext&, const ToolCall&) override;
  void on_approval_requested(RunContext&, const ApprovalRequest&) override;
  void on_approval_decided(RunContext&, const ApprovalRequest&, const ApprovalDecision&) override;
  void on_tool_result(RunContext&, const ToolCall&, const ToolResult&) override;
  void on_guard_fired(RunContext&, const GuardEvent&) override;
  void on_plan_step(RunContext&, const PlanStepUpdate&) override;
  void on_status_changed(RunContext&, RunStatus) override;
  void on_run_finished(RunContext&, const RunOutcome&) override;
  void on_run_failed(RunContext&, const RunOutcome&) override;

 private:
  void emit(std::string_view type, nlohmann::json body, const RunContext* ctx);
  Sink sink_;
  bool stream_deltas_;
};

}  // namespace keel::detail
