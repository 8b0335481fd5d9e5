// Resuming a run from its committed conversation (after a crash or a stop): the machine rebuilds
// its counters from the run's messages and decides from the tail what comes next.
#include <algorithm>
#include <set>

#include "core/guards/call_signature.hpp"
#include "keel/core/agent_machine.hpp"

namespace keel {
namespace {
constexpr std::string_view kInterrupted =
    "interrupted: the run stopped before this call finished, and it was not run again because it may change "
    "things. Check its effect before calling it again.";
}  // namespace

Decision AgentMachine::resume_from_tail() {
  // Counters of the run so far: one model call per assistant message, one tool round per
  // assistant message that asked for tools.
  size_t last_assistant = history_.size();
  for (size_t i = run_start_; i < history_.size(); ++i) {
    if (history_[i].role != Role::kAssistant) continue;
    ++model_calls_;
    if (!history_[i].tool_calls.empty()) rounds_used_ = std::min(config_.max_rounds, rounds_used_ + 1);
    last_assistant = i;
  }
  if (last_assistant == history_.size() || history_.back().role == Role::kUser) return next_model_call();

  const Message& asked = history_[last_assistant];
  if (asked.tool_calls.empty()) {
    if (last_assistant + 1 == history_.size() && !asked.content.empty()) {
      last_answer_ = asked.content;
      phase_ = AgentPhase::kFinished;
      return decide(Finish{asked.content});  // the run had already answered
    }
    return next_model_call();
  }
  // The round of the last assistant message: calls without a committed result were in flight.
  // Read-only calls are run again; anything else may have changed the world, so it is reported
  // to the model as interrupted instead of being repeated behind the user's back.
  std::set<std::string> answered;
  for (size_t i = last_assistant + 1; i < history_.size(); ++i) {
    if (history_[i].role == Role::kTool) answered.insert(history_[i].tool_call_id);
  }
  round_calls_.clear();
  if (resume_calls_not_started_) {  // nothing of them ran: decide on them as if they had just been asked for
    for (const ToolCall& call : asked.tool_calls) {
      if (answered.count(call.id) != 0) continue;
      PendingCall pc;
      pc.call = call;
      round_calls_.push_back(std::move(pc));
    }
    if (round_calls_.empty()) return next_model_call();
    for (size_t i = 0; i < round_calls_.size(); ++i) classify_call(i);
    return ask_or_dispatch();
  }
  for (const ToolCall& call : asked.tool_calls) {
    if (answered.count(call.id) != 0) continue;
    PendingCall pc;
    pc.call = call;
    pc.spec = find_tool(call.name);
    Result<std::string> canonical = detail::canonical_arguments(call.arguments);
    if (canonical.ok()) pc.canonical = *canonical;
    if (pc.spec != nullptr && pc.spec->read_only && canonical.ok()) {
      pc.state = PendingCall::State::kRun;
    } else {
      pc.result.emplace();
      pc.result->call_id = call.id;
      pc.result->name = call.name;
      pc.result->status = ToolStatus::kCancelled;
      pc.result->content.assign(kInterrupted);
    }
    round_calls_.push_back(std::move(pc));
  }
  if (round_calls_.empty()) return next_model_call();
  return dispatch_tools();
}

}  // namespace keel
