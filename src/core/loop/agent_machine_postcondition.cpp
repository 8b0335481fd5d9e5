// Tool postconditions in the agent machine (keel/core/postcondition.hpp). An ok result that breaks
// one of its tool's postconditions is not passed on as data: the model gets an error result that
// quotes the output and carries the postcondition's stricter hint, a postcondition_failed guard
// fires, and the next continuation prompt repeats the hint. That is the one corrective retry. If
// the same tool fails a postcondition again in a later model round, the run fails: an honest
// failure is better than an answer built on output that is not there.
//
// Several calls of one tool that fail in the same round count as one attempt: the model had not
// yet seen the stricter instruction when it made them.
#include <utility>

#include "keel/core/agent_machine.hpp"
#include "keel/core/postcondition.hpp"

namespace keel {

void AgentMachine::enforce_postconditions(PendingCall& pc) {
  if (pc.spec == nullptr || pc.spec->postconditions.empty() || !pc.result || pc.result->status != ToolStatus::kOk) return;
  ToolResult& r = *pc.result;
  const std::string& arguments = pc.canonical.empty() ? pc.call.arguments : pc.canonical;
  std::optional<PostconditionFailure> f = check_postconditions(*pc.spec, r.content, arguments);
  if (!f) return;

  const std::string& tool = pc.call.name;
  std::string failed = tool;
  failed.append(" failed its postcondition ").append(f->name).append(": ").append(f->reason);
  failed.append(" (output: \"").append(f->excerpt).append("\")");

  std::string content = "postcondition ";
  content.append(f->name).append(" failed: ").append(f->reason).append(". The output was: \"");
  content.append(f->excerpt).append("\". ").append(f->hint);
  r.status = ToolStatus::kError;
  r.content = std::move(content);

  auto [first_failure, inserted] = postcondition_failed_in_.try_emplace(tool, model_calls_);
  if (!inserted && first_failure->second < model_calls_) {
    guards_.push_back({GuardKind::kPostconditionFailed, failed + " again after a corrective retry; the run ends", tool,
                       pc.call.id});
    if (!postcondition_fail_) {
      std::string why = failed;
      why.append(" again after a corrective retry. keel does not answer from output that breaks its tool's "
                 "contract; a more capable model or a simpler task may succeed.");
      postcondition_fail_ = std::move(why);
    }
    return;
  }
  guards_.push_back({GuardKind::kPostconditionFailed, failed + "; one corrective retry", tool, pc.call.id});
  std::string note = failed;
  note.append(". ").append(f->hint).append(" This is the one corrective retry: if ").append(tool);
  note.append("'s output fails a postcondition again, the run ends as failed.");
  guard_notes_.push_back(std::move(note));
}

Decision AgentMachine::fail_on_postcondition() {
  std::string reason = std::move(*postcondition_fail_);
  postcondition_fail_.reset();
  if (plan_) {
    plan_update(plan_->next, PlanStepState::kFailed, reason);
    std::string skipped = "step ";
    skipped.append(std::to_string(plan_->next + 1)).append(" failed");
    for (size_t i = plan_->next + 1; i < plan_->plan.steps.size(); ++i) plan_update(i, PlanStepState::kSkipped, skipped);
    plan_.reset();
  }
  round_calls_.clear();
  return fail(FailureKind::kGuardrail, std::move(reason));
}

}  // namespace keel
