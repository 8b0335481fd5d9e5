// keel/core/decision.hpp — what to do next: the outputs of the agent state machine.
//
// A Decision carries one action for the host plus the guardrail firings of that step, so every
// guard is observable (events, --json, continuation prompt), never a silent drop.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "keel/core/context_manager.hpp"
#include "keel/core/event.hpp"
#include "keel/core/run_budget.hpp"
#include "keel/core/token_counter.hpp"
#include "keel/message.hpp"
#include "keel/model_io.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

// Call the model with exactly this request.
struct CallModel {
  ModelRequest request;
  TokenBreakdown context;     // tokens of the request's history and tools, by category
  size_t context_window = 0;  // the model's window in tokens; 0: unknown
};

// Ask the model to summarize older history for the context pipeline: send `request` (no tools)
// and report the reply as ModelReplied (its text is the summary) or ModelFailed.
//
// The summary may come from a cache instead of the model. The core's own cache
// (ContextPolicy::summary_cache_entries) has no entry for this span, or there would be no
// Summarize. A host that keeps summaries across runs (keel's runtime: in its store) looks
// `cache_key` up in `cache_scope` first: on a hit it reports the stored text as ModelReplied and
// calls no model; on a miss it calls the model and stores a non-empty reply under the same key.
// An empty `cache_key` means: call the model, cache nothing.
struct Summarize {
  ModelRequest request;
  size_t messages = 0;      // how many history messages the summary will replace
  uint64_t span_hash = 0;   // identifies the summarized span (the FNV-1a of its messages)
  std::string cache_scope;  // "context_summary"
  std::string cache_key;    // span_hash as 16 lowercase hex digits
};

// Ask a planner, before the first round of a new run, which tools to use in what order: send
// `request` (the planner's instructions listing the tools, then the task; no tools) and give up
// after `timeout_ms`. Report ModelReplied (its text is the plan) or ModelFailed (a timeout or an
// error). Neither ends the run: the next decision is the first CallModel, and its
// Decision::planner says whether the plan was used or why it was skipped.
struct CallPlanner {
  ModelRequest request;
  int64_t timeout_ms = 0;
};

// Run these calls (arguments are JSON object text) and report ToolsFinished.
struct RunTools {
  std::vector<ToolCall> calls;
  RunBudget budget_left;  // what the calls may still spend on model calls of their own (sub-agents)
};

struct ApprovalRequest {
  ToolCall call;
  Risk risk = Risk::kHigh;
  std::string reason;  // why approval is needed, e.g. "shell is a high-risk tool"
};

// Ask for approval of these calls and report ApprovalsGiven.
struct AskApproval {
  std::vector<ApprovalRequest> requests;
};

// The run is done; `answer` is the model's final text. With `client_calls` the run ends handing
// calls of client-side tools (ToolSpec::client_side) to the caller: `answer` is then the text of
// the reply that made them (possibly empty), and the conversation waits for their results.
struct Finish {
  std::string answer;
  std::vector<ToolCall> client_calls = {};
};

enum class FailureKind {
  kGuardrail,    // a guard ended the run (e.g. no answer after the round limit)
  kModelOutput,  // the model's output was unusable (empty replies, broken calls)
  kBackend,      // the backend failed
  kAborted,      // stopped by the user or host
  kInternal,     // an event arrived that the current phase cannot accept (a host bug)
};

// "guardrail", "model_output", "backend", "aborted", "internal".
std::string_view failure_kind_name(FailureKind kind);

// The run failed; `reason` says why in words a user can act on.
struct Fail {
  FailureKind kind = FailureKind::kInternal;
  std::string reason;
};

using Action = std::variant<CallModel, CallPlanner, Summarize, RunTools, AskApproval, Finish, Fail>;

enum class GuardKind {
  kRoundLimit,        // max_rounds reached: final call without tools
  kNoUsableCall,      // empty reply: corrective continuation
  kMalformedCall,     // a call whose syntax or arguments could not be used, or that names no known tool
  kRepeatedFailure,   // same call failed repeatedly: its signature is disabled
  kSemanticRepeat,    // identical or near-identical call already made: blocked
  kPermissionDenied,  // approval refused: a standing constraint for the run
  kInjectionFlag,     // a tool result looks like a prompt injection: safety note
  kContextLimit,      // a tool result exceeded its size budget: truncated
  kRepairedCall,      // a call was recovered from malformed output; the fixes are listed
  kContextCompacted,  // the history was compacted to fit the context window; the stages are listed
  kPlanHalted,        // a plan stopped: a step failed or a reference/placeholder did not resolve
  kPostconditionFailed,  // an ok tool output broke one of the tool's postconditions: error result and
                         // one corrective retry; a second failure of the same tool fails the run
  kBudget,               // the run's token or cost cap was reached: no further model call, the run fails
};

// "round_limit", "no_usable_call", "malformed_call", "repeated_failure", "semantic_repeat",
// "permission_denied", "injection_flag", "context_limit", "repaired_call", "context_compacted",
// "plan_halted", "postcondition_failed", "budget".
std::string_view guard_kind_name(GuardKind kind);

struct GuardEvent {
  GuardKind kind;
  std::string detail;   // one sentence a person can read
  std::string tool;     // the tool concerned, if any
  std::string call_id;  // the call concerned, if any
};

// Where a step of a plan (keel/core/plan.hpp) stands: Planned → Executing → Done / Failed /
// Skipped.
enum class PlanStepState { kPlanned, kExecuting, kDone, kFailed, kSkipped };

// "planned", "executing", "done", "failed", "skipped".
std::string_view plan_step_state_name(PlanStepState state);

// A plan step changed state.
struct PlanStepUpdate {
  size_t index = 0;  // 0-based position in the plan
  size_t steps = 0;  // how many steps the plan has
  PlanStepState state = PlanStepState::kPlanned;
  std::string tool;
  std::string save_as;
  bool alias_inferred = false;  // save_as was made up as "_stepN"
  std::string why;              // the model's reason for the step
  std::string arguments;        // kExecuting and later: the resolved arguments (JSON object text)
  std::string call_id;          // kExecuting and later: the call that runs the step
  std::string detail;           // kFailed / kSkipped: why
};

// A verdict the approval gate (AgentConfig::approval_gate) reached without asking anyone: every
// refusal, and every call it let run although the call's risk (at or above
// AgentConfig::approval_threshold) would have been asked about without a gate. Calls the gate left
// to the host's approver are not here: they are in AskApproval, and the host learns their answers
// itself. A host logs these with those answers (keel's runtime: approval events and the store).
struct GateDecision {
  ToolCall call;
  Risk risk = Risk::kHigh;
  ApprovalVerdict verdict = ApprovalVerdict::kDeny;  // kAllow or kDeny
  std::string reason;                                // the gate's, naming the rule that decided
};

// How the planner call of a CallPlanner ended; exactly one field is set. A host records it
// (keel's runtime as the run's "planner" metadata: the plan, or "skipped: " + the reason).
struct PlannerOutcome {
  std::string plan;     // the plan as hinted to the model (at most 600 bytes of the reply)
  std::string skipped;  // why there is no plan: "empty reply" or the error the host reported
};

struct Decision {
  Action action;
  std::vector<GuardEvent> guards;  // guards that fired during this step, in order
  // Messages appended to the conversation during this step, in order: what a host that keeps the
  // conversation (a session store) persists before acting on the decision.
  std::vector<Message> committed;
  // Set when the context pipeline changed the history during this step.
  std::optional<CompactionReport> compaction;
  // Plan steps that changed state during this step, in order.
  std::vector<PlanStepUpdate> plan_steps;
  // Set on the decision that follows a CallPlanner.
  std::optional<PlannerOutcome> planner;
  // What the approval gate decided on its own during this step, in the order of the calls.
  std::vector<GateDecision> gate_decisions;
};

}  // namespace keel
