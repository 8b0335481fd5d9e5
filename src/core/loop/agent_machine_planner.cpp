// The planner in the agent machine: with AgentConfig::planner enabled, a new run starts with one
// short model call (CallPlanner) that says which tools to use in what order. Its reply reaches the
// model as a "planner: ..." hint at the end of the system prompt; a timeout, an error or an empty
// reply only means the run goes on without it, and Decision::planner says which it was.
#include "keel/core/agent_machine.hpp"
#include "keel/core/prompt_builder.hpp"

namespace keel {
namespace {

// The longest plan kept, in bytes: a hint, not a second task.
constexpr size_t kPlannerChars = 600;

std::string planner_instructions(std::span<const ToolSpec> tools) {
  std::string names;
  for (const auto& t : tools) names += (names.empty() ? "" : ", ") + t.name;
  return "You plan tool use for an agent. In at most three short lines, say which of these tools to use, in what "
         "order, for the user's task. Tools: " +
         names + ". Do not solve the task.";
}

}  // namespace

Decision AgentMachine::ask_planner() {
  CallPlanner p;
  planner_messages_ = {Message::system(planner_instructions(tools_)), Message::user(history_[run_start_].content)};
  p.request.history = planner_messages_;
  p.request.tools_enabled = false;
  p.request.round = 0;
  p.timeout_ms = config_.planner.timeout_ms;
  phase_ = AgentPhase::kAwaitingPlanner;
  // Not decide(): the messages stay uncommitted until the plan is in the system prompt.
  Decision d;
  d.action = std::move(p);
  return d;
}

Decision AgentMachine::on_planner(const std::string* text, const Status* error) {
  PlannerOutcome outcome;
  if (text == nullptr) {
    outcome.skipped = error->to_string();
  } else if (text->empty()) {
    outcome.skipped = "empty reply";
  } else {
    outcome.plan = text->substr(0, kPlannerChars);
    history_[0].content = add_prompt_hint(std::move(history_[0].content), "planner: " + outcome.plan);
    // The first constructor committed the system prompt; the committed copy carries the plan too.
    if (!committed_.empty() && committed_.front().role == Role::kSystem) committed_.front().content = history_[0].content;
    context_.invalidate();
  }
  planner_ = std::move(outcome);
  planner_messages_.clear();
  return next_model_call();
}

}  // namespace keel
