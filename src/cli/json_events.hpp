// `keel run --json`: every run event as one JSON object per line (JSON Lines) on stdout.
// The schema is versioned ("v": 1) and documented in docs/events.md; the last line of a run is
// run_finished (with the answer) or run_failed.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "keel/hooks.hpp"

namespace keel::cli {

// Thread-safety: called by the agent one hook at a time; writes whole lines.
class JsonEventsPlugin final : public Hooks {
 public:
  // `out` must outlive the plugin. With `stream_deltas` false, model_delta events are left out.
  JsonEventsPlugin(std::FILE* out, bool stream_deltas);

  // A line that is not tied to a hook: {"v":1,"type":"notice","message":...}.
  void notice(const std::string& message);
  // The last line when a run could not start: {"type":"run_failed","kind":"usage"...}.
  void error(const std::string& kind, const std::string& message, int exit_code);

  void on_run_started(RunContext&) override;
  void on_user_message(RunContext&, const Message&) override;
  void on_context(RunContext&, const TokenBreakdown& tokens, size_t context_window) override;
  void on_compaction(RunContext&, const CompactionReport& report) override;
  void on_model_delta(RunContext&, std::string_view text) override;
  void on_reasoning_delta(RunContext&, std::string_view text) override;
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
  struct Writer;
  std::shared_ptr<Writer> writer_;
  bool stream_deltas_;
};

// The exit code keel uses for an outcome: 0 answer, 3 run failed, 4 backend error, 130 aborted.
int exit_code_for(const RunOutcome& outcome);

}  // namespace keel::cli
