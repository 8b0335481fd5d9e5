#include "keel/core/agent_machine.hpp"

#include <algorithm>
#include <optional>

#include "core/guards/call_signature.hpp"
#include "core/guards/result_budget.hpp"
#include "core/text/text_util.hpp"
#include "keel/core/deferred_tools.hpp"
#include "keel/core/injection_detector.hpp"
#include "keel/core/prompt_builder.hpp"

namespace keel {

namespace {

using detail::Overloaded;

std::string trimmed(std::string_view s) {
  return std::string(detail::trim(s));
}

using detail::one_line;
using detail::shorten;

// The user's task: the context pipeline never drops or summarizes it.
Message task_message(std::string task) {
  Message m = Message::user(std::move(task));
  m.metadata["kind"] = "task";
  return m;
}

}  // namespace

AgentMachine::AgentMachine(AgentConfig config, std::vector<ToolSpec> tools, std::string system_prompt, std::string task,
                           std::shared_ptr<const ToolCallParser> parser)
    : AgentMachine(config, std::move(tools), std::move(parser)) {
  commit(Message::system(std::move(system_prompt)));
  commit(task_message(std::move(task)));
}

AgentMachine::AgentMachine(AgentConfig config, std::vector<ToolSpec> tools, std::string system_prompt,
                           std::vector<Message> earlier, std::string task, std::shared_ptr<const ToolCallParser> parser)
    : AgentMachine(config, std::move(tools), std::move(parser)) {
  adopt(std::move(system_prompt), std::move(earlier));
  commit(task_message(std::move(task)));
}

AgentMachine AgentMachine::continuing(AgentConfig config, std::vector<ToolSpec> tools, std::string system_prompt,
                                      std::vector<Message> earlier, std::vector<Message> added, std::string task,
                                      std::shared_ptr<const ToolCallParser> parser) {
  AgentMachine m(config, std::move(tools), std::move(parser));
  m.adopt(std::move(system_prompt), std::move(earlier));
  for (Message& msg : added) m.commit(std::move(msg));
  m.has_task_ = !task.empty();
  if (m.has_task_) {
    m.run_start_ = m.history_.size();
    m.commit(task_message(std::move(task)));
  }
  return m;
}

AgentMachine AgentMachine::resuming(AgentConfig config, std::vector<ToolSpec> tools, std::string system_prompt,
                                    std::vector<Message> conversation, size_t run_start,
                                    std::shared_ptr<const ToolCallParser> parser, bool calls_not_started) {
  AgentMachine m(config, std::move(tools), std::move(parser));
  m.resume_calls_not_started_ = calls_not_started;
  size_t dropped = !conversation.empty() && conversation.front().role == Role::kSystem ? 1 : 0;
  m.adopt(std::move(system_prompt), std::move(conversation));
  m.run_start_ = std::min(m.history_.size(), std::max<size_t>(1, run_start + 1 - dropped));
  m.resuming_ = true;
  return m;
}

AgentMachine::AgentMachine(AgentConfig config, std::vector<ToolSpec> tools,
                           std::shared_ptr<const ToolCallParser> parser)
    : config_(config),
      tools_(std::move(tools)),
      has_deferred_(has_deferred_tools(tools_)),
      parser_(std::move(parser)),
      context_(config_.context, config_.token_counter) {
  if (!parser_) parser_ = shared_default_tool_call_parser();
  config_.max_rounds = std::max(1, config_.max_rounds);
  config_.repeated_failure_limit = std::max(1, config_.repeated_failure_limit);
  config_.max_empty_replies = std::max(0, config_.max_empty_replies);
}

void AgentMachine::adopt(std::string system_prompt, std::vector<Message> earlier) {
  history_.reserve(earlier.size() + 8);
  history_.push_back(Message::system(std::move(system_prompt)));
  size_t first = !earlier.empty() && earlier.front().role == Role::kSystem ? 1 : 0;
  for (size_t i = first; i < earlier.size(); ++i) history_.push_back(std::move(earlier[i]));
  run_start_ = history_.size();
}

void AgentMachine::commit(Message m) {
  committed_.push_back(m);
  history_.push_back(std::move(m));
}

Decision AgentMachine::decide(Action action) {
  Decision d;
  d.action = std::move(action);
  d.guards = std::move(guards_);
  guards_.clear();
  d.committed = std::move(committed_);
  committed_.clear();
  d.compaction = std::move(compaction_);
  compaction_.reset();
  d.plan_steps = std::move(plan_updates_);
  plan_updates_.clear();
  d.planner = std::move(planner_);
  planner_.reset();
  d.gate_decisions = std::move(gate_decisions_);
  gate_decisions_.clear();
  return d;
}

Decision AgentMachine::start() {
  if (phase_ != AgentPhase::kIdle) return reject("start");
  if (resuming_) return resume_from_tail();
  if (config_.planner.enabled && has_task_) return ask_planner();
  return next_model_call();
}

Decision AgentMachine::step(const Event& event) {
  guards_.clear();
  return std::visit(
      Overloaded{
          [&](const ModelReplied& e) {
            if (phase_ == AgentPhase::kAwaitingPlanner) return on_planner(&e.reply.text, nullptr);
            if (phase_ == AgentPhase::kAwaitingSummary) return on_summary(&e.reply.text, nullptr);
            return phase_ == AgentPhase::kAwaitingModel ? on_model_reply(e.reply) : reject("model_replied");
          },
          [&](const ModelFailed& e) {
            if (phase_ == AgentPhase::kAwaitingPlanner) return on_planner(nullptr, &e.error);
            if (phase_ == AgentPhase::kAwaitingSummary) return on_summary(nullptr, &e.error);
            return phase_ == AgentPhase::kAwaitingModel
                       ? fail(FailureKind::kBackend,
                              e.error.message().empty() ? e.error.to_string() : e.error.message())
                       : reject("model_failed");
          },
          [&](const ToolsFinished& e) {
            return phase_ == AgentPhase::kAwaitingTools ? on_tools_finished(e) : reject("tools_finished");
          },
          [&](const ApprovalsGiven& e) {
            return phase_ == AgentPhase::kAwaitingApproval ? on_approvals(e) : reject("approvals_given");
          },
          [&](const ContinueRequested& e) {
            return phase_ == AgentPhase::kFinished ? on_continue(e) : reject("continue_requested");
          },
          [&](const Aborted& e) {
            return done() ? reject("aborted")
                          : fail(FailureKind::kAborted, e.reason.empty() ? "aborted by the user" : e.reason);
          },
      },
      event);
}

Decision AgentMachine::on_model_reply(const ModelReply& reply) {
  used_.prompt_tokens += reply.usage.prompt_tokens;
  used_.completion_tokens += reply.usage.completion_tokens;
  std::vector<ToolCall> calls = reply.tool_calls;
  std::string text = reply.text;
  std::string reasoning = reply.reasoning;
  ParsedReply parsed;
  if (calls.empty()) {
    parsed = parser_->parse(reply.text, tools_);
    calls = parsed.calls;
    text = parsed.text;
    if (reasoning.empty()) reasoning = parsed.reasoning;
    if (!parsed.repairs.empty()) {
      std::string fixes;
      for (const auto& r : parsed.repairs) fixes += (fixes.empty() ? "" : "; ") + r;
      guards_.push_back(
          {GuardKind::kRepairedCall, "recovered the tool call from malformed output (" + fixes + ")", "", ""});
    }
  }
  if (final_round_) return finish_final_round(text, reasoning, !calls.empty() || !parsed.errors.empty());
  if (calls.empty() && !parsed.errors.empty()) return malformed_call(reply.text, parsed.errors.front());
  for (const auto& err : parsed.errors) {
    guards_.push_back({GuardKind::kMalformedCall, err, "", ""});
    guard_notes_.push_back("One of your tool calls could not be used: " + err + ".");
  }
  if (calls.empty()) {
    Result<std::optional<Plan>> plan = parse_plan(text);
    if (!plan.ok()) return malformed_call(reply.text, plan.status().message(), /*plan=*/true);
    if (*plan) return start_plan(std::move(**plan), reply.text, reasoning);
  }
  repair_rounds_ = 0;
  if (calls.empty()) {
    std::string answer = trimmed(text);
    if (answer.empty()) return no_usable_call("the reply was empty");
    return finish(std::move(answer), reasoning);
  }

  empty_replies_ = 0;
  round_calls_.clear();
  for (size_t i = 0; i < calls.size(); ++i) {
    PendingCall pc;
    pc.call = calls[i];
    if (pc.call.id.empty()) pc.call.id = "call_" + std::to_string(model_calls_) + "_" + std::to_string(i + 1);
    round_calls_.push_back(std::move(pc));
  }
  std::vector<ToolCall> assistant_calls;
  for (const auto& pc : round_calls_) assistant_calls.push_back(pc.call);
  round_text_ = trimmed(text);
  Message m = Message::assistant(round_text_, std::move(assistant_calls));
  m.reasoning = reasoning;
  m.metadata["round"] = std::to_string(model_calls_);
  commit(std::move(m));

  for (size_t i = 0; i < round_calls_.size(); ++i) classify_call(i);
  return ask_or_dispatch();
}

Decision AgentMachine::dispatch_tools() {
  RunTools run;
  for (const auto& pc : round_calls_) {
    if (pc.state == PendingCall::State::kRun) run.calls.push_back(pc.call);
  }
  if (run.calls.empty()) return close_round();
  run.budget_left = config_.budget.left_after(used_);
  phase_ = AgentPhase::kAwaitingTools;
  return decide(std::move(run));
}

Decision AgentMachine::on_tools_finished(const ToolsFinished& done) {
  size_t next = 0;
  for (auto& pc : round_calls_) {
    if (pc.state != PendingCall::State::kRun) continue;
    if (next >= done.results.size()) break;
    const ToolResult& r = done.results[next];
    used_ += r.model_usage;  // a sub-agent's model calls count in this run's budget
    if (!r.call_id.empty() && r.call_id != pc.call.id) {
      return fail(FailureKind::kInternal,
                  "tool result for '" + r.call_id + "' arrived where '" + pc.call.id + "' was expected");
    }
    pc.result = r;
    pc.ran = true;
    pc.state = PendingCall::State::kSettled;
    ++next;
  }
  if (next != done.results.size() || std::any_of(round_calls_.begin(), round_calls_.end(), [](const PendingCall& pc) {
        return !pc.result && pc.state != PendingCall::State::kClient;
      })) {
    return fail(FailureKind::kInternal,
                "expected one tool result per call; got " + std::to_string(done.results.size()));
  }
  return close_round();
}

void AgentMachine::record_result(PendingCall& pc) {
  ToolResult& r = *pc.result;
  r.call_id = pc.call.id;
  r.name = pc.call.name;
  if (pc.ran) {
    enforce_postconditions(pc);  // on the full output, before the budget cuts it
    if (detail::apply_result_budget(r.content, config_.result_char_budget)) {
      r.truncated = true;
      guards_.push_back({GuardKind::kContextLimit,
                         pc.call.name + " returned more than " + std::to_string(config_.result_char_budget) +
                             " characters; the result was truncated",
                         pc.call.name, pc.call.id});
    }
    InjectionScan scan = scan_for_injection(r.content);
    if (scan.flagged) {
      injection_warning_ = true;
      std::string signals;
      for (const auto& s : scan.signals) signals += (signals.empty() ? "" : "; ") + s;
      guards_.push_back({GuardKind::kInjectionFlag,
                         "output of " + pc.call.name + " looks like a prompt injection (" + signals + ")", pc.call.name,
                         pc.call.id});
    }
    std::string sig = detail::call_signature(pc.call.name, pc.canonical);
    if (!pc.spec->read_only) successful_calls_.clear();  // the world may have changed: re-reads are legitimate
    if (r.status == ToolStatus::kError || r.status == ToolStatus::kTimeout) {
      if (++failure_counts_[sig] == config_.repeated_failure_limit) {
        disabled_signatures_.insert(sig);
        std::string why = pc.call.name + " " + shorten(pc.canonical, 120) + " failed " +
                          std::to_string(config_.repeated_failure_limit) +
                          " times; it is disabled for the rest of this run";
        guards_.push_back({GuardKind::kRepeatedFailure, why, pc.call.name, pc.call.id});
        guard_notes_.push_back(why + ". Change the arguments or take another approach.");
      }
    } else if (r.status == ToolStatus::kOk) {
      successful_calls_.push_back({pc.call.name, pc.canonical, pc.call.id});
    }
  }
  std::string line = pc.call.name + " " + shorten(pc.canonical.empty() ? pc.call.arguments : pc.canonical, 80) + " → " +
                     std::string(tool_status_name(r.status));
  if (!r.ok())
    line += ": " + shorten(one_line(r.content), 160);
  else
    line += " (" + std::to_string(r.content.size()) + " chars" + (r.truncated ? ", truncated" : "") + ")";
  tool_summary_.push_back(std::move(line));
  Message m = Message::tool(r);
  m.metadata["round"] = std::to_string(model_calls_);
  if (r.truncated) m.metadata["truncated"] = "true";
  commit(std::move(m));
}

Decision AgentMachine::close_round() {
  // A plan step's references read the whole output, not what the result budget keeps of it.
  std::string full_output =
      plan_ && !round_calls_.empty() && round_calls_[0].result ? round_calls_[0].result->content : "";
  std::vector<ToolCall> client_calls;
  for (auto& pc : round_calls_) {
    if (pc.state == PendingCall::State::kClient) {
      client_calls.push_back(pc.call);
    } else {
      record_result(pc);
    }
  }
  if (postcondition_fail_) return fail_on_postcondition();
  if (plan_) return continue_plan(std::move(full_output));
  round_calls_.clear();
  if (!client_calls.empty()) {  // the caller runs these: the run ends until their results come
    last_answer_ = round_text_;
    handed_over_ = true;
    phase_ = AgentPhase::kFinished;
    return decide(Finish{round_text_, std::move(client_calls)});
  }
  return next_model_call();
}

Decision AgentMachine::no_usable_call(const std::string& why) {
  ++empty_replies_;
  guards_.push_back({GuardKind::kNoUsableCall, why, "", ""});
  if (empty_replies_ > config_.max_empty_replies) {
    if (empty_replies_ == 1) return fail(FailureKind::kModelOutput, "the model gave no usable reply (" + why + ")");
    return fail(FailureKind::kModelOutput, "the model gave no usable reply " + std::to_string(empty_replies_) +
                                               " times in a row (last time: " + why + ")");
  }
  correction_ = "Your previous reply could not be used (" + why +
                "). Either call one of the available tools, or write your final answer as plain text.";
  return next_model_call();
}

Decision AgentMachine::finish_final_round(const std::string& text, const std::string& reasoning, bool wanted_tools) {
  std::string answer = trimmed(text);
  if (answer.empty()) {
    return fail(FailureKind::kGuardrail,
                "the round limit of " + std::to_string(config_.max_rounds) + " was reached and the model " +
                    (wanted_tools ? "still asked for tools instead of answering" : "gave no final answer"));
  }
  return finish(std::move(answer), reasoning);
}

Decision AgentMachine::malformed_call(const std::string& raw, const std::string& error, bool plan) {
  guards_.push_back({GuardKind::kMalformedCall, error, "", ""});
  if (repair_rounds_ >= 1) {
    return fail(FailureKind::kModelOutput,
                std::string(plan ? "the model's plan could not be run" : "the model's tool call could not be parsed") +
                    ", again after a repair round: " + error + "; raw output: " + shorten(one_line(raw), 300));
  }
  ++repair_rounds_;
  if (!trimmed(raw).empty()) commit(Message::assistant(raw));
  std::string names;
  for (const auto& t : tools_) names += (names.empty() ? "" : ", ") + t.name;
  // A broken plan is fixed as a plan: the call repair prompt would ask for one bare call instead.
  correction_ =
      plan ? "Your plan was not run: " + error +
                 ". Send the plan again with this fixed, or call one tool directly. Available tools: " + names + "."
           : render_repair_prompt(config_.repair_prompt, error, names);
  return next_model_call();
}

Decision AgentMachine::finish(std::string answer, const std::string& reasoning) {
  Message m = Message::assistant(answer);
  m.reasoning = reasoning;
  commit(std::move(m));
  last_answer_ = answer;
  phase_ = AgentPhase::kFinished;
  return decide(Finish{std::move(answer)});
}

Decision AgentMachine::on_continue(const ContinueRequested& req) {
  // Calls handed to the caller wait for its results; a user message now would leave them unanswered.
  if (handed_over_) return reject("continue_requested");
  if (final_round_) {
    guards_.push_back(
        {GuardKind::kRoundLimit, "a request for another round was refused: the round limit was reached", "", ""});
    return decide(Finish{last_answer_});
  }
  commit(Message::user(req.message));
  return next_model_call();
}

Decision AgentMachine::call_model() {
  if (std::optional<std::string> spent = budget_spent()) {
    guards_.push_back({GuardKind::kBudget, *spent, "", ""});
    return fail(FailureKind::kGuardrail, *spent);
  }
  if (rounds_used_ >= config_.max_rounds) {
    final_round_ = true;
    guards_.push_back(
        {GuardKind::kRoundLimit,
         "round limit of " + std::to_string(config_.max_rounds) + " reached; asking for a final answer without tools",
         "", ""});
  } else {
    ++rounds_used_;
  }
  ++model_calls_;
  CallModel call;
  call.request.history = history_;
  if (config_.tool_protocol == ToolProtocol::kNative) {
    if (has_deferred_) {
      offered_ = offered_tools(tools_, history_);  // the request's span points into it until the next call
      call.request.tools = offered_;
    } else {
      call.request.tools = tools_;
    }
  }
  call.context = context_.measure(history_, call.request.tools);
  call.context_window = config_.context.context_window;
  call.request.tools_enabled = !final_round_;
  call.request.final_round = final_round_;
  call.request.round = model_calls_;
  if (model_calls_ > 1) {
    ContinuationParts parts;
    parts.round = final_round_ ? config_.max_rounds : rounds_used_;
    parts.max_rounds = config_.max_rounds;
    parts.tool_summary = std::move(tool_summary_);
    parts.denials = denials_;
    parts.guard_notes = std::move(guard_notes_);
    parts.injection_warning = injection_warning_;
    parts.final_round = final_round_;
    parts.correction = std::move(correction_);
    Message note = config_.continuation_role == ContinuationRole::kUser
                       ? Message::user(build_continuation_prompt(parts))
                       : Message::system(build_continuation_prompt(parts));
    note.metadata["kind"] = "continuation";
    call.request.appended.push_back(std::move(note));
  }
  tool_summary_.clear();
  guard_notes_.clear();
  correction_.clear();
  injection_warning_ = false;
  phase_ = AgentPhase::kAwaitingModel;
  return decide(std::move(call));
}

namespace {

// "0.0125": an amount of money with four decimals (integer arithmetic: floating-point to_chars is
// not in every standard library the core builds with).
std::string amount_text(double value) {
  const auto ten_thousandths = static_cast<int64_t>(value * 10000.0 + 0.5);
  std::string fraction = std::to_string(ten_thousandths % 10000);
  fraction.insert(0, 4 - fraction.size(), '0');
  return std::to_string(ten_thousandths / 10000) + "." + fraction;
}

}  // namespace

std::optional<std::string> AgentMachine::budget_spent() const {
  const RunBudget& b = config_.budget;
  const int64_t tokens = used_.prompt_tokens + used_.completion_tokens;
  switch (b.reached(used_)) {
    case RunBudget::Cap::kTokens:
      return "the run's token budget of " + std::to_string(b.max_tokens) + " is spent (" + std::to_string(tokens) +
             " tokens used); raise the cap (--max-tokens) to let it go on";
    case RunBudget::Cap::kCost:
      return "the run's cost budget of " + amount_text(b.max_cost) + " is spent (" + amount_text(b.cost_of(used_)) +
             " used by " + std::to_string(tokens) + " tokens); raise the cap (--max-cost) to let it go on";
    case RunBudget::Cap::kNone:
      break;
  }
  return std::nullopt;
}

Decision AgentMachine::fail(FailureKind kind, std::string reason) {
  phase_ = AgentPhase::kFailed;
  return decide(Fail{kind, std::move(reason)});
}

Decision AgentMachine::reject(const char* event_name) {
  std::string reason = std::string("event '") + event_name + "' is not expected while the agent is " +
                       std::string(agent_phase_name(phase_));
  phase_ = AgentPhase::kFailed;
  guards_.clear();
  return decide(Fail{FailureKind::kInternal, std::move(reason)});
}

const ToolSpec* AgentMachine::find_tool(const std::string& name) const {
  auto it = std::find_if(tools_.begin(), tools_.end(), [&](const ToolSpec& t) { return t.name == name; });
  return it == tools_.end() ? nullptr : &*it;
}

}  // namespace keel
