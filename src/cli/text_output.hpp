// `keel run` human output: the answer streams to stdout; compact tool lines, guards, retries and
// errors go to stderr so the answer can be piped.
#pragma once

#include <cstdio>

#include "keel/hooks.hpp"

namespace keel::cli {

// Thread-safety: called by the agent one hook at a time. Per-run state lives in RunContext.
class TextOutputPlugin final : public Hooks {
 public:
  // `out` (answer) and `err` (progress) must outlive the plugin.
  TextOutputPlugin(std::FILE* out, std::FILE* err) : out_(out), err_(err) {}

  void on_model_delta(RunContext&, std::string_view text) override;
  void on_model_retry(RunContext&, int attempt, const Status& why, int64_t delay_ms) override;
  void on_model_reply(RunContext&, const ModelReply&) override;
  void on_approval_decided(RunContext&, const ApprovalRequest&, const ApprovalDecision&) override;
  void on_tool_result(RunContext&, const ToolCall&, const ToolResult&) override;
  void on_guard_fired(RunContext&, const GuardEvent&) override;
  void on_plan_step(RunContext&, const PlanStepUpdate&) override;
  void on_run_finished(RunContext&, const RunOutcome&) override;
  void on_run_failed(RunContext&, const RunOutcome&) override;

 private:
  std::FILE* out_;
  std::FILE* err_;
};

// "path=README.md limit=20": a call's arguments in one short line.
std::string short_arguments(const std::string& json_text, size_t max_value = 40);

}  // namespace keel::cli
