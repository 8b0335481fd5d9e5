// Plans in the agent machine (keel/core/plan.hpp): a reply that is a whole plan runs its steps
// strictly in order, each as a one-call round that goes through the same guards, approvals and
// result handling as a call the model made itself. The first failure halts the plan (later steps
// are Skipped) and the model is told why; when every step is done the hydrated reply is the
// answer.
#include "core/text/text_util.hpp"
#include "keel/core/agent_machine.hpp"

namespace keel {

using detail::one_line;
using detail::shorten;

void AgentMachine::plan_update(size_t index, PlanStepState state, std::string detail) {
  const PlanStep& step = plan_->plan.steps[index];
  PlanStepUpdate u;
  u.index = index;
  u.steps = plan_->plan.steps.size();
  u.state = state;
  u.tool = step.tool;
  u.save_as = step.save_as;
  u.alias_inferred = step.alias_inferred;
  u.why = step.why;
  if (state != PlanStepState::kPlanned && state != PlanStepState::kSkipped && index == plan_->next) {
    u.arguments = plan_->arguments;
    u.call_id = plan_->call_id;
  }
  u.detail = std::move(detail);
  plan_updates_.push_back(std::move(u));
}

Decision AgentMachine::start_plan(Plan plan, const std::string& raw, const std::string& reasoning) {
  if (!reply_binds_results(plan.reply)) {
    return malformed_call(raw,
                          "the plan's \"reply\" binds no tool data: it must use at least one {{tool_result.FIELD}} or "
                          "{{tool.ALIAS.FIELD}} placeholder, so nothing was run",
                          /*plan=*/true);
  }
  repair_rounds_ = 0;
  empty_replies_ = 0;
  plan_.emplace();
  plan_->next = 0;
  plan_->plan = std::move(plan);
  plan_->raw = std::string(detail::trim(raw));
  plan_->reasoning = reasoning;
  for (size_t i = 0; i < plan_->plan.steps.size(); ++i) {
    plan_update(
        i, PlanStepState::kPlanned,
        plan_->plan.steps[i].alias_inferred ? "no save_as given: saved as " + plan_->plan.steps[i].save_as : "");
  }
  return run_plan_step();
}

Decision AgentMachine::run_plan_step() {
  PlanRun& run = *plan_;
  const size_t index = run.next;
  const PlanStep& step = run.plan.steps[index];
  if (const ToolSpec* spec = find_tool(step.tool); spec != nullptr && spec->client_side) {
    return halt_plan(index, step.tool + " is run by the client, not by the plan; call it directly as a tool call");
  }
  Result<std::string> args = run.results.resolve_arguments(step.args);
  if (!args.ok()) return halt_plan(index, args.status().message());
  run.arguments = *args;
  run.call_id = "plan_" + std::to_string(model_calls_) + "_" + std::to_string(index + 1);
  plan_update(index, PlanStepState::kExecuting);

  round_calls_.clear();
  PendingCall pc;
  pc.call = ToolCall{run.call_id, step.tool, run.arguments};
  round_calls_.push_back(std::move(pc));
  // The plan is the text of the first step's message, so the model later sees what it planned.
  Message m = Message::assistant(index == 0 ? run.raw : std::string(), {round_calls_[0].call});
  if (index == 0) m.reasoning = run.reasoning;
  m.metadata["round"] = std::to_string(model_calls_);
  m.metadata["plan_step"] = std::to_string(index + 1);
  commit(std::move(m));

  classify_call(0);
  PendingCall& only = round_calls_[0];
  if (only.state == PendingCall::State::kApprove) {
    phase_ = AgentPhase::kAwaitingApproval;
    AskApproval ask;
    ask.requests.push_back({only.call, only.spec->risk, only.approval_reason});
    return decide(std::move(ask));
  }
  return dispatch_tools();
}

Decision AgentMachine::continue_plan(std::string full_output) {
  PlanRun& run = *plan_;
  const size_t index = run.next;
  const ToolResult result = round_calls_.empty() || !round_calls_[0].result ? ToolResult{} : *round_calls_[0].result;
  round_calls_.clear();
  if (!result.ok()) {
    std::string why = run.plan.steps[index].tool + " returned " + std::string(tool_status_name(result.status)) + ": " +
                      shorten(one_line(result.content), 200);
    return halt_plan(index, std::move(why));
  }
  run.results.add(run.plan.steps[index].save_as, full_output);
  plan_update(index, PlanStepState::kDone);
  if (++run.next < run.plan.steps.size()) return run_plan_step();

  Result<std::string> answer = run.results.hydrate(run.plan.reply);
  if (!answer.ok()) {
    std::string why = answer.status().message();
    guards_.push_back({GuardKind::kPlanHalted, "the plan ran, but its reply could not be filled: " + why, "", ""});
    guard_notes_.push_back("Every step of your plan ran, but its reply could not be filled in (" + why +
                           "). Write the answer from the results above.");
    plan_.reset();
    return next_model_call();
  }
  std::string reasoning = std::move(run.reasoning);
  plan_.reset();
  return finish(std::move(answer).value(), reasoning);
}

Decision AgentMachine::halt_plan(size_t index, std::string why) {
  PlanRun& run = *plan_;
  plan_update(index, PlanStepState::kFailed, why);
  std::string skipped;
  for (size_t i = index + 1; i < run.plan.steps.size(); ++i) {
    plan_update(i, PlanStepState::kSkipped, "step " + std::to_string(index + 1) + " failed");
    skipped += (skipped.empty() ? "" : ", ") + std::to_string(i + 1);
  }
  const std::string what = "plan step " + std::to_string(index + 1) + " (" + run.plan.steps[index].tool +
                           ") failed: " + why + (skipped.empty() ? "" : "; skipped steps " + skipped);
  guards_.push_back({GuardKind::kPlanHalted, what, run.plan.steps[index].tool, run.call_id});
  guard_notes_.push_back("Your plan was halted: " + what +
                         ". Nothing after that step ran. Decide what to do next with the results you have.");
  plan_.reset();
  round_calls_.clear();
  return next_model_call();
}

}  // namespace keel
