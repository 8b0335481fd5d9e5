#include "keel/agent.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "base/clock.hpp"
#include "base/random_token.hpp"
#include "core/parsing/json/json_text.hpp"
#include "core/text/text_util.hpp"
#include "keel/core/prompt_builder.hpp"
#include "runtime/agent_impl.hpp"
#include "runtime/client_tools.hpp"
#include "runtime/tool_cache.hpp"

namespace keel {
namespace {

using detail::Overloaded;

constexpr size_t kMaxAgentsMdBytes = 64 * 1024;

// <workspace>/AGENTS.md, capped; empty when absent.
std::string read_agents_md(const std::string& workspace) {
  if (workspace.empty()) return {};
  std::ifstream in(workspace + "/AGENTS.md", std::ios::binary);
  if (!in) return {};
  std::string text(kMaxAgentsMdBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxAgentsMdBytes) {
    text.resize(kMaxAgentsMdBytes);
    text += "\n[AGENTS.md truncated at 64 KiB]";
  }
  return text;
}

// 128 random bits: approval and question ids of keel serve are built from run ids.
std::string new_run_id() { return "run_" + detail::random_hex(16); }

// The Skills section for `task`; the triggered skills whose bodies it holds are noted in the run's
// metadata ("skills_loaded") for plugins.
std::string skills_section(const AgentOptions& options, const TokenCounter& counter, std::string_view task,
                           std::span<const ToolSpec> tools, RunContext& ctx) {
  SkillDisclosureOptions disclosure = options.skill_disclosure;
  disclosure.load_tool =
      std::any_of(tools.begin(), tools.end(), [](const ToolSpec& t) { return t.name == "load_skill"; });
  SkillDisclosure d = knowledge_skills_section(options.knowledge_skills, task, options.config.context.context_window,
                                               counter, disclosure);
  std::string loaded;
  for (const std::string& name : d.loaded) {
    if (!loaded.empty()) loaded += ", ";
    loaded += name;
  }
  if (!loaded.empty()) ctx.metadata["skills_loaded"] = loaded;
  return std::move(d.text);
}

}  // namespace

std::string_view run_status_name(RunStatus status) {
  switch (status) {
    case RunStatus::kStarting: return "starting";
    case RunStatus::kPlanning: return "planning";
    case RunStatus::kCallingModel: return "calling_model";
    case RunStatus::kWaitingApproval: return "waiting_approval";
    case RunStatus::kRunningTools: return "running_tools";
    case RunStatus::kCompacting: return "compacting";
    case RunStatus::kFinished: return "finished";
    case RunStatus::kFailed: return "failed";
  }
  return "starting";
}

bool Agent::Impl::every_tool(const RunTools& run, bool ToolSpec::*flag) const {
  return std::all_of(run.calls.begin(), run.calls.end(), [&](const ToolCall& c) {
    const Tool* tool = tools_.find(c.name);
    return tool != nullptr && tool->spec().*flag;
  });
}

Event Agent::Impl::run_tools(RunContext& ctx, const RunTools& run, detail::SessionRecorder* recorder,
                             std::stop_token stop, RunOutcome& outcome) {
  set_status(ctx, RunStatus::kRunningTools);
  outcome.tool_calls += static_cast<int>(run.calls.size());
  std::vector<ToolCall> calls;  // as hooks left them (on_tool_use may rewrite arguments)
  calls.reserve(run.calls.size());
  for (const ToolCall& c : run.calls) calls.push_back(rewritten(c));
  std::map<std::string, int64_t> started_us;  // callbacks arrive one at a time on this thread
  BatchCallbacks callbacks;
  callbacks.on_start = [&](const ToolCall& c) {
    started_us[c.id] = detail::wall_now_us();
    emit([&](Hooks& h) { h.on_tool_call(ctx, c); });
  };
  callbacks.on_finish = [&](const ToolCall& c, const ToolResult& r) {
    emit([&](Hooks& h) { h.on_tool_result(ctx, c, r); });
    if (recorder != nullptr) {
      int64_t end = detail::wall_now_us();
      auto it = started_us.find(c.id);
      recorder->tool_ran(c, r, it != started_us.end() ? it->second : end - r.duration_ms * 1000, end);
    }
  };
  // Cacheable tools answer from the store's tool_result scope when they can.
  detail::ToolResultCache cache(options_.store, options_.workspace);
  std::vector<std::optional<ToolResult>> cached(calls.size());
  std::vector<std::string> keys(calls.size());
  std::vector<ToolCall> to_run;
  for (size_t i = 0; i < calls.size(); ++i) {
    const ToolCall& c = calls[i];
    if (const Tool* tool = tools_.find(c.name)) keys[i] = cache.key(c, tool->spec());
    cached[i] = cache.get(keys[i], c);
    if (cached[i]) {
      callbacks.on_start(c);
      callbacks.on_finish(c, *cached[i]);
    } else {
      to_run.push_back(c);
    }
  }
  ToolRunScope scope;
  scope.session_id = ctx.session_id;
  scope.run_id = ctx.run_id;
  scope.depth = options_.depth;
  scope.budget_left = run.budget_left;
  std::vector<ToolResult> ran = executor_.run_batch(to_run, callbacks, stop, scope);
  if (stop.stop_requested()) {
    return Aborted{"interrupted while " + std::to_string(to_run.size()) + " tool call(s) were running; they were cancelled"};
  }
  std::vector<ToolResult> results;
  results.reserve(calls.size());
  size_t next = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (cached[i]) {
      results.push_back(std::move(*cached[i]));
      continue;
    }
    if (next >= ran.size()) break;
    cache.put(keys[i], ran[next]);
    results.push_back(std::move(ran[next++]));
  }
  for (size_t i = 0; i < results.size(); ++i) emit([&](Hooks& h) { h.on_tool_finished(ctx, calls[i], results[i]); });
  return ToolsFinished{std::move(results)};
}

std::vector<ToolSpec> Agent::Impl::own_tools() const {
  std::vector<ToolSpec> specs = tools_.specs();
  if (!options_.tool_allowlist.empty()) {  // a sub-agent sees only the tools it was given
    const auto& allowed = options_.tool_allowlist;
    std::erase_if(specs, [&](const ToolSpec& s) { return std::find(allowed.begin(), allowed.end(), s.name) == allowed.end(); });
  }
  return specs;
}

Result<RunOutcome> Agent::Impl::run(const Start& start, std::stop_token stop) {
  auto started = std::chrono::steady_clock::now();
  KEEL_ASSIGN_OR_RETURN(Preflight preflight, Preflight::create(options_.intents));
  if (start.kind != Start::Kind::kNew && options_.store == nullptr) {
    return Status::FailedPrecondition("sessions need a store; this agent was built without one");
  }
  std::vector<ToolSpec> specs = own_tools();
  specs.insert(specs.end(), client_tools.begin(), client_tools.end());
  if (start.kind != Start::Kind::kResume && start.task.empty()) {  // goes on after client-side calls
    KEEL_TRY(start.kind == Start::Kind::kNew ? detail::check_continuation(start.earlier, {})
                                             : detail::check_continuation_results(start.added));
  }
  AgentConfig config = options_.config;
  if (options_.planner.enabled) config.planner = {true, options_.planner.timeout_ms};
  std::shared_ptr<detail::ApprovalPolicyGate> gate;
  if (!config.approval_gate) {
    KEEL_ASSIGN_OR_RETURN(gate, detail::load_approval_gate(options_.approvals, config.approval_threshold, options_.store,
                                                           options_.workspace));
    config.approval_gate = gate;
  }
  RunOutcome outcome;
  RunContext ctx;
  ctx.model = llm_.describe();
  ctx.continued = start.kind != Start::Kind::kNew;
  if (!hooks.empty()) config.approval_gate = hooked_gate(ctx, config.approval_gate, config.approval_threshold);

  // Storage first: a run that cannot be saved does not start.
  std::optional<detail::SessionRecorder> recorder;
  std::vector<Message> earlier;
  size_t run_start = 0;
  std::string task = start.task;
  if (options_.store != nullptr) {
    recorder.emplace(*options_.store, *counter_, options_.workspace);
    if (options_.on_trace) recorder->set_span_sink(options_.on_trace);
    if (start.kind == Start::Kind::kNew) {
      KEEL_TRY(recorder->start_new_session(task, ctx.model, options_.parent_session_id, start.earlier));
      earlier = start.earlier;
    } else if (start.kind == Start::Kind::kContinue) {
      KEEL_ASSIGN_OR_RETURN(earlier, recorder->start_in_session(start.id, task, start.run_id));
      if (Status fits = detail::check_continuation(earlier, start.added); task.empty() && !fits.ok()) {
        RunOutcome refused;
        refused.failure = FailureKind::kInternal;
        refused.error = fits.message();
        recorder->finish(refused);
        return fits;
      }
    } else {
      KEEL_ASSIGN_OR_RETURN(earlier, recorder->attach_to_run(start.id, run_start, task));
    }
    ctx.run_id = recorder->run_id();
    ctx.session_id = recorder->session_id();
  } else {
    ctx.run_id = new_run_id();
    earlier = start.earlier;
  }
  ctx.task = task;
  emit([&](Hooks& h) { h.on_run_started(ctx); });
  std::string refusal;  // a hook refused the task: the run ends before the model sees it
  if (start.kind != Start::Kind::kResume && !task.empty()) {
    PromptActions prompt = prompt_submitted(ctx, task);
    if (prompt.refuse) refusal = "the task was refused by a hook: " + (prompt.reason.empty() ? "no reason given" : prompt.reason);
    if (!prompt.context.empty()) task += "\n\n" + prompt.context;
  }

  SystemPromptParts parts;
  parts.core_instructions = options_.core_instructions;
  parts.tools = specs;
  parts.protocol = options_.config.tool_protocol;
  if (options_.load_agents_md) parts.project_instructions = read_agents_md(options_.workspace);
  if (!options_.knowledge_skills.empty()) parts.skills = skills_section(options_, *counter_, task, specs, ctx);
  parts.hints = preflight.hints(task, specs);
  std::string system_prompt = build_system_prompt(parts);
  AgentMachine machine =
      start.kind == Start::Kind::kResume
          ? AgentMachine::resuming(config, specs, std::move(system_prompt), std::move(earlier), run_start, options_.parser,
                                   start.calls_not_started)
      : task.empty() || !start.added.empty()
          ? AgentMachine::continuing(config, specs, std::move(system_prompt), std::move(earlier), start.added, task,
                                     options_.parser)
      : start.kind == Start::Kind::kContinue || !earlier.empty()
          ? AgentMachine(config, specs, std::move(system_prompt), std::move(earlier), task, options_.parser)
          : AgentMachine(config, specs, std::move(system_prompt), task, options_.parser);
  ctx.machine = &machine;
  manual_compaction_ = false;
  if (force_compaction_.exchange(false)) {
    machine.request_compaction();
    manual_compaction_ = true;
  }
  if (refusal.empty()) {
    set_gate(gate);
    set_running(true);
    drive(ctx, machine, recorder ? &*recorder : nullptr, stop, outcome, start.kind != Start::Kind::kResume);
    set_running(false);
    set_gate(nullptr);
  } else {
    outcome.ok = false;
    outcome.failure = FailureKind::kAborted;
    outcome.error = std::move(refusal);
  }
  outcome.rounds = machine.rounds_used();
  outcome.duration_ms = detail::ms_since(started);
  outcome.session_id = ctx.session_id;
  outcome.run_id = ctx.run_id;
  if (options_.redactor) options_.redactor->redact_in_place(outcome.error);
  if (recorder) {
    recorder->finish(outcome);
    if (outcome.ok && !recorder->error().ok()) {
      outcome.ok = false;
      outcome.failure = FailureKind::kInternal;
      outcome.error = recorder->error().message();
    }
  }
  if (outcome.suspended) return outcome;  // neither finished nor failed: the host resumes it later
  set_status(ctx, outcome.ok ? RunStatus::kFinished : RunStatus::kFailed);
  if (outcome.ok) {
    emit([&](Hooks& h) { h.on_run_finished(ctx, outcome); });
  } else {
    emit([&](Hooks& h) { h.on_run_failed(ctx, outcome); });
  }
  return outcome;
}

void Agent::Impl::drive(RunContext& ctx, AgentMachine& machine, detail::SessionRecorder* recorder,
                        std::stop_token stop, RunOutcome& outcome, bool announce_task) {
  Decision decision = machine.start();
  int continued_at = -1;  // machine.model_calls() when another round was last requested
  // A resumed run goes on in the round it stopped in: its events carry that round.
  if (ctx.round == 0) ctx.round = machine.model_calls();
  for (;;) {
    // The task is announced once the planner, if one was asked, has answered.
    if (announce_task && !machine.has_task()) announce_task = false;  // a continuation after client calls
    if (announce_task && !std::holds_alternative<CallPlanner>(decision.action)) {
      announce_task = false;
      emit([&](Hooks& h) { h.on_user_message(ctx, machine.history()[machine.run_start()]); });
    }
    // A stop the host turns into a suspension keeps the stored conversation as it was: the
    // messages that close an aborted round (cancelled results) are not saved, so a resume takes
    // the round up again.
    if (const Fail* f = std::get_if<Fail>(&decision.action);
        f != nullptr && f->kind == FailureKind::kAborted && stop.stop_requested() && options_.suspend_on_stop &&
        options_.suspend_on_stop()) {
      outcome.ok = false;
      outcome.failure = FailureKind::kAborted;
      outcome.error = f->reason;
      outcome.suspended = true;
      if (recorder != nullptr) {  // results of calls that did finish are kept; cancelled ones will run again
        std::vector<Message> finished;
        for (const Message& m : decision.committed) {
          auto status = m.metadata.find("status");
          if (m.role == Role::kTool && (status == m.metadata.end() || status->second != "cancelled")) finished.push_back(m);
        }
        recorder->commit(finished);
      }
      return;
    }
    // Committed before acting on the decision: a crash from here on loses nothing said so far.
    if (recorder != nullptr) {
      // The commit is written while the run goes on, except before an act with side effects:
      // that waits until the conversation that led to it is in the store. Calls that are all
      // read-only and bounded are safe to repeat and done at once: the round's assistant message
      // goes into the store with their results, one transaction for the round.
      const RunTools* tools = std::get_if<RunTools>(&decision.action);
      const bool safe_to_repeat = tools != nullptr && every_tool(*tools, &ToolSpec::read_only);
      if (safe_to_repeat && every_tool(*tools, &ToolSpec::bounded)) {
        recorder->commit_with_next(decision.committed);
      } else {
        recorder->commit(decision.committed);
      }
      if (tools != nullptr && !safe_to_repeat) recorder->settle();
      if (!recorder->error().ok() && !std::holds_alternative<Fail>(decision.action)) {
        outcome.ok = false;
        outcome.failure = FailureKind::kInternal;
        outcome.error = recorder->error().message();
        return;
      }
    }
    // A hook ended the run (RunContext::stop_reason): nothing more is asked or run.
    if (!ctx.stop_reason.empty() && !std::holds_alternative<Fail>(decision.action) &&
        !std::holds_alternative<Finish>(decision.action)) {
      outcome.ok = false;
      outcome.failure = FailureKind::kAborted;
      outcome.error = ctx.stop_reason;
      return;
    }
    if (decision.planner) {  // read by the first calling_model status event (run_event_json.cpp)
      ctx.metadata["planner"] =
          decision.planner->plan.empty() ? "skipped: " + decision.planner->skipped : decision.planner->plan;
    }
    log_gate_decisions(ctx, decision, recorder);
    for (const auto& g : decision.guards) emit([&](Hooks& h) { h.on_guard_fired(ctx, g); });
    for (const auto& u : decision.plan_steps) emit([&](Hooks& h) { h.on_plan_step(ctx, u); });
    if (decision.compaction) {
      emit([&](Hooks& h) { h.on_compaction(ctx, *decision.compaction); });
      if (recorder != nullptr) {
        const CompactionReport& c = *decision.compaction;
        detail::SortedJsonObject fields;
        detail::append_json_int(fields.member("tokens_before"), static_cast<int64_t>(c.tokens_before));
        detail::append_json_int(fields.member("tokens_after"), static_cast<int64_t>(c.tokens_after));
        detail::append_json_int(fields.member("digested"), static_cast<int64_t>(c.messages_digested));
        detail::append_json_int(fields.member("summarized"), static_cast<int64_t>(c.messages_summarized));
        detail::append_json_int(fields.member("dropped"), static_cast<int64_t>(c.messages_dropped));
        std::string attrs;
        fields.append_to(attrs);
        int64_t t = detail::wall_now_us();
        recorder->span("context", "compaction", t, t, "ok", std::move(attrs));
      }
    }
    if (auto* finish = std::get_if<Finish>(&decision.action); finish != nullptr && !finish->client_calls.empty()) {
      outcome.ok = true;  // handed over: neither the hooks nor steering can add a round now
      outcome.answer = finish->answer;
      outcome.client_calls = finish->client_calls;
      return;
    }
    if (auto* finish = std::get_if<Finish>(&decision.action)) {
      ResponseActions actions;
      // A Finish right after a requested round (the machine refused it at the round limit) is not
      // offered to the hooks again, so a hook that always asks for more cannot loop.
      if (machine.model_calls() != continued_at) {
        emit([&](Hooks& h) { h.on_response_complete(ctx, finish->answer, actions); });
      }
      if (!actions.another_round) {  // guidance that came while the model answered: one more round
        std::vector<std::string> late = take_steering();
        for (size_t i = 0; i < late.size(); ++i) {
          if (i > 0) actions.message += "\n\n";
          actions.message += late[i];
        }
        actions.another_round = !late.empty();
      }
      if (actions.another_round && ctx.stop_reason.empty()) {
        continued_at = machine.model_calls();
        emit([&](Hooks& h) { h.on_user_message(ctx, Message::user(actions.message)); });
        decision = machine.step(ContinueRequested{actions.message});
        continue;
      }
      outcome.ok = true;
      outcome.answer = finish->answer;
      return;
    }
    if (auto* fail = std::get_if<Fail>(&decision.action)) {
      outcome.ok = false;
      outcome.failure = fail->kind;
      outcome.error = fail->reason;
      return;
    }
    Event event = std::visit(
        Overloaded{
            [&](CallModel& c) -> Event {
              emit([&](Hooks& h) { h.on_context(ctx, c.context, c.context_window); });
              return call_model(ctx, std::move(c.request), recorder, stop, outcome);
            },
            [&](CallPlanner& p) -> Event { return call_planner(ctx, p, stop, outcome); },
            [&](Summarize& s) -> Event { return summarize(ctx, s, recorder, stop, outcome); },
            [&](AskApproval& a) -> Event { return ask_approval(ctx, a, recorder, stop); },
            [&](RunTools& r) -> Event { return run_tools(ctx, r, recorder, stop, outcome); },
            [&](auto&) -> Event { return Aborted{"unreachable"}; },
        },
        decision.action);
    // Guidance joins the conversation after a round's tool results, before the next model call;
    // what arrives with an answer gets its own round (the Finish branch above).
    if (std::holds_alternative<ToolsFinished>(event)) {
      for (std::string& text : take_steering()) {
        emit([&](Hooks& h) { h.on_user_message(ctx, Message::user(text)); });
        machine.add_guidance(std::move(text));
      }
    }
    decision = machine.step(event);
  }
}

std::vector<std::string> Agent::Impl::take_steering() {
  std::lock_guard<std::mutex> lock(steer_mutex_);
  return std::exchange(steering_, {});
}

void Agent::Impl::set_running(bool running) {
  std::lock_guard<std::mutex> lock(steer_mutex_);
  running_ = running;
  steering_.clear();
}

bool Agent::Impl::steer(std::string text) {
  std::lock_guard<std::mutex> lock(steer_mutex_);
  if (!running_) return false;
  steering_.push_back(std::move(text));
  return true;
}

Agent::Agent(LlmClient& llm, const ToolRegistry& tools, AgentOptions options)
    : impl_(std::make_unique<Impl>(llm, tools, std::move(options))) {}
Agent::~Agent() = default;
void Agent::add_hooks(std::shared_ptr<Hooks> hooks) { impl_->hooks.push_back(std::move(hooks)); }
void Agent::set_approver(std::shared_ptr<Approver> approver) { impl_->approver = std::move(approver); }
Result<RunOutcome> Agent::run(std::string_view task, std::stop_token stop) {
  return impl_->run({Impl::Start::Kind::kNew, std::string(task), {}, {}, {}, {}, false}, stop);
}
Result<RunOutcome> Agent::continue_session(std::string_view session_id, std::string_view task, std::stop_token stop,
                                           RunStartOptions options) {
  Impl::Start start{Impl::Start::Kind::kContinue, std::string(task), std::string(session_id), {},
                    std::move(options.run_id), std::move(options.added), false};
  return impl_->run(start, stop);
}
Status Agent::set_client_tools(std::vector<ToolSpec> tools) {
  std::vector<ToolSpec> own = impl_->own_tools();
  KEEL_TRY(detail::check_client_tools(tools, own));
  for (ToolSpec& t : tools) t.client_side = true;
  impl_->client_tools = std::move(tools);
  return Status::Ok();
}
Result<RunOutcome> Agent::run_after(std::vector<Message> earlier, std::string_view task, std::stop_token stop) {
  std::erase_if(earlier, [](const Message& m) { return m.role == Role::kSystem; });
  return impl_->run({Impl::Start::Kind::kNew, std::string(task), {}, std::move(earlier), {}, {}, false}, stop);
}
bool Agent::steer(std::string text) { return impl_->steer(std::move(text)); }
void Agent::request_compaction() { impl_->force_compaction_ = true; }
Result<RunOutcome> Agent::resume(std::string_view run_id, std::stop_token stop, ResumeOptions options) {
  return impl_->run({Impl::Start::Kind::kResume, {}, std::string(run_id), {}, {}, {}, options.calls_not_started}, stop);
}

}  // namespace keel
