// Stable names of the state machine's enums; they appear in JSON events and test vectors.
#include "keel/core/agent_machine.hpp"
#include "keel/core/decision.hpp"

namespace keel {

std::string_view failure_kind_name(FailureKind kind) {
  switch (kind) {
    case FailureKind::kGuardrail: return "guardrail";
    case FailureKind::kModelOutput: return "model_output";
    case FailureKind::kBackend: return "backend";
    case FailureKind::kAborted: return "aborted";
    case FailureKind::kInternal: return "internal";
  }
  return "internal";
}

std::string_view guard_kind_name(GuardKind kind) {
  switch (kind) {
    case GuardKind::kRoundLimit: return "round_limit";
    case GuardKind::kNoUsableCall: return "no_usable_call";
    case GuardKind::kMalformedCall: return "malformed_call";
    case GuardKind::kRepeatedFailure: return "repeated_failure";
    case GuardKind::kSemanticRepeat: return "semantic_repeat";
    case GuardKind::kPermissionDenied: return "permission_denied";
    case GuardKind::kInjectionFlag: return "injection_flag";
    case GuardKind::kContextLimit: return "context_limit";
    case GuardKind::kContextCompacted: return "context_compacted";
    case GuardKind::kRepairedCall: return "repaired_call";
    case GuardKind::kPlanHalted: return "plan_halted";
    case GuardKind::kPostconditionFailed: return "postcondition_failed";
    case GuardKind::kBudget: return "budget";
  }
  return "round_limit";
}

std::string_view approval_verdict_name(ApprovalVerdict verdict) {
  switch (verdict) {
    case ApprovalVerdict::kAllow: return "allow";
    case ApprovalVerdict::kAllowAlways: return "allow_always";
    case ApprovalVerdict::kDeny: return "deny";
  }
  return "deny";
}

std::string_view plan_step_state_name(PlanStepState state) {
  switch (state) {
    case PlanStepState::kPlanned: return "planned";
    case PlanStepState::kExecuting: return "executing";
    case PlanStepState::kDone: return "done";
    case PlanStepState::kFailed: return "failed";
    case PlanStepState::kSkipped: return "skipped";
  }
  return "planned";
}

std::string_view agent_phase_name(AgentPhase phase) {
  switch (phase) {
    case AgentPhase::kIdle: return "idle";
    case AgentPhase::kAwaitingPlanner: return "awaiting_planner";
    case AgentPhase::kAwaitingModel: return "awaiting_model";
    case AgentPhase::kAwaitingApproval: return "awaiting_approval";
    case AgentPhase::kAwaitingTools: return "awaiting_tools";
    case AgentPhase::kAwaitingSummary: return "awaiting_summary";
    case AgentPhase::kFinished: return "finished";
    case AgentPhase::kFailed: return "failed";
  }
  return "idle";
}

}  // namespace keel
