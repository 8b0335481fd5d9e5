// keel/hooks.hpp — the one extension interface of a run (seed 001's plugin hooks).
//
// Subclass Hooks and override what you need; every method does nothing by default. Plugins are
// stateless: per-run state travels in RunContext::metadata, so one plugin object can serve many
// runs. Some hooks may change the run: on_process_prompts may edit the outgoing request,
// on_response_complete may ask for another round, on_prompt_submitted may refuse or add to the
// task, on_tool_use may refuse, rewrite or change the approval of a call (never loosening a policy
// refusal), on_permission_request may answer an approval question, on_tool_finished may add to a
// result, and any hook may end the run by setting RunContext::stop_reason.
//
//   struct Logger : keel::Hooks {
//     void on_tool_result(keel::RunContext&, const keel::ToolCall& c, const keel::ToolResult& r) override {
//       std::cerr << c.name << " -> " << keel::tool_status_name(r.status) << "\n";
//     }
//   };
//   agent.add_hooks(std::make_shared<Logger>());
//
// Thread-safety: the agent never calls hooks concurrently (calls from tool threads are
// serialised), so a plugin needs no locking of its own for per-run data.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "keel/core/decision.hpp"
#include "keel/core/event.hpp"
#include "keel/message.hpp"
#include "keel/model_io.hpp"
#include "keel/result.hpp"

namespace keel {

class AgentMachine;

// Where a run is; reported through on_status_changed.
enum class RunStatus {
  kStarting,
  kPlanning,
  kCallingModel,
  kWaitingApproval,
  kRunningTools,
  kCompacting,  // the model is summarizing older history for the context pipeline
  kFinished,
  kFailed,
};

// "starting", "planning", "calling_model", "waiting_approval", "running_tools", "compacting",
// "finished", "failed".
std::string_view run_status_name(RunStatus status);

// What a run ended with.
struct RunOutcome {
  bool ok = false;                              // an answer was produced
  std::string answer;                           // the final answer (ok only)
  FailureKind failure = FailureKind::kInternal; // why it failed (!ok only)
  std::string error;                            // message a user can act on (!ok only)
  int rounds = 0;                               // tool rounds used
  int model_calls = 0;                          // model calls made (including planner and final)
  int tool_calls = 0;                           // tool calls requested by the model
  Usage usage;                                  // summed over all model calls
  int64_t duration_ms = 0;                      // wall time of the run
  std::string session_id;                       // the stored session (empty without a store)
  std::string run_id;                           // the stored run (empty without a store)
  bool suspended = false;                       // stopped and kept resumable (AgentOptions::suspend_on_stop)
  // Calls of client-side tools (Agent::set_client_tools) the run ended with: the caller runs them
  // and continues the conversation with their results. ok is true; answer is the text of the
  // reply that made them (possibly empty).
  std::vector<ToolCall> client_calls = {};
};

// Per-run state shared with every hook.
struct RunContext {
  std::string run_id;                           // unique per run (the stored run id when there is a store)
  std::string session_id;                       // the stored session; empty without a store
  std::string task;                             // the user's task
  std::string model;                            // the backend's description
  int round = 0;                                // the model call in progress (1-based)
  RunStatus status = RunStatus::kStarting;
  const AgentMachine* machine = nullptr;        // read-only view of the conversation; valid during the run
  std::map<std::string, std::string> metadata;  // free for plugins to keep per-run state in
  bool continued = false;                       // the run continues a stored session or resumes a stored run
  // Set by a hook to end the run: it fails (FailureKind::kAborted) with this reason before its next step.
  std::string stop_reason;
};

// Set by on_prompt_submitted before the task reaches the model.
struct PromptActions {
  bool refuse = false;  // the run does not start; Agent::run returns FailedPrecondition with `reason`
  std::string reason;
  std::string context;  // added after the task, for the model
};

// What hooks decided about a tool call before keel's approval policy looks at it (on_tool_use).
// Hooks tighten the policy or answer a question it would have asked; they never loosen a refusal:
//   kAllow  run without asking where the policy would have asked; a policy deny still refuses
//   kAsk    ask the approver even where the policy would have let the call run
//   kDeny   refuse the call; `reason` is the result the model reads
struct ToolUseDecision {
  enum class Verdict { kNone, kAllow, kAsk, kDeny };
  Verdict verdict = Verdict::kNone;
  std::string reason;
  // New JSON arguments for the call; checked against the tool's schema, and the policy then
  // decides on the call with them.
  std::optional<std::string> arguments = std::nullopt;
};

// Set by on_response_complete to continue instead of returning the answer.
struct ResponseActions {
  bool another_round = false;  // run another round
  std::string message;         // the user message that starts it
};

class Hooks {
 public:
  virtual ~Hooks() = default;
  virtual void on_run_started(RunContext&) {}
  virtual void on_user_message(RunContext&, const Message&) {}
  // The task of a new run (or the next turn of a session), before it reaches the model: may refuse
  // it or add context (actions starts empty; several hooks add up).
  virtual void on_prompt_submitted(RunContext&, const std::string& /*task*/, PromptActions&) {}
  // Called before every model call; may edit `request` (appended messages, sampling, history).
  virtual void on_process_prompts(RunContext&, ModelRequest&) {}
  // Tokens of the request about to be sent, by category, and the model's window (0: unknown).
  virtual void on_context(RunContext&, const TokenBreakdown& /*tokens*/, size_t /*context_window*/) {}
  // The context pipeline changed the history (also reported as a context_compacted guard).
  virtual void on_compaction(RunContext&, const CompactionReport&) {}
  virtual void on_model_delta(RunContext&, std::string_view /*text*/) {}
  virtual void on_reasoning_delta(RunContext&, std::string_view /*text*/) {}
  // A reply that writes its tool calls as text is calling `name` (known before its arguments are
  // complete; the call itself follows as on_tool_call once the reply is read).
  virtual void on_call_announced(RunContext&, std::string_view /*name*/) {}
  virtual void on_model_retry(RunContext&, int /*attempt*/, const Status& /*why*/, int64_t /*delay_ms*/) {}
  virtual void on_model_reply(RunContext&, const ModelReply&) {}
  // A final answer is ready; set actions.another_round to continue instead.
  virtual void on_response_complete(RunContext&, const std::string& /*answer*/, ResponseActions&) {}
  // Before the approval policy decides on `call` (once per call, on the thread driving the run).
  virtual void on_tool_use(RunContext&, const ToolCall& /*call*/, const ToolSpec&, ToolUseDecision&) {}
  virtual void on_tool_call(RunContext&, const ToolCall&) {}
  // Before the approver is asked about `request`: setting `decision` answers it instead (kAllow or
  // kDeny; kAllowAlways counts as kAllow). Only calls the policy left open reach here.
  virtual void on_permission_request(RunContext&, const ApprovalRequest&, std::optional<ApprovalDecision>& /*decision*/) {}
  virtual void on_approval_requested(RunContext&, const ApprovalRequest&) {}
  virtual void on_approval_decided(RunContext&, const ApprovalRequest&, const ApprovalDecision&) {}
  virtual void on_tool_result(RunContext&, const ToolCall&, const ToolResult&) {}
  // After a round's calls ran, before their results reach the model: may add to `result`.
  virtual void on_tool_finished(RunContext&, const ToolCall&, ToolResult& /*result*/) {}
  // The context is about to be summarized; `manual`: Agent::request_compaction asked for it.
  virtual void on_compaction_starting(RunContext&, bool /*manual*/) {}
  virtual void on_guard_fired(RunContext&, const GuardEvent&) {}
  // A step of a plan the model replied with changed state (Planned, Executing, Done, Failed, Skipped).
  virtual void on_plan_step(RunContext&, const PlanStepUpdate&) {}
  virtual void on_status_changed(RunContext&, RunStatus) {}
  virtual void on_run_finished(RunContext&, const RunOutcome&) {}
  virtual void on_run_failed(RunContext&, const RunOutcome&) {}
};

}  // namespace keel
