#include "keel/agent.hpp"

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>

#include "core/text_util.hpp"
#include "keel/core/agent_machine.hpp"
#include "keel/core/prompt_builder.hpp"
#include "keel/tool_executor.hpp"

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

std::string new_run_id() {
  static std::atomic<uint64_t> counter{0};
  std::random_device rd;
  uint64_t bits = (static_cast<uint64_t>(rd()) << 32) ^ rd() ^ counter.fetch_add(1);
  std::ostringstream out;
  out << "run_" << std::hex << bits;
  return out.str();
}

int64_t elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

std::string_view run_status_name(RunStatus status) {
  switch (status) {
    case RunStatus::kStarting: return "starting";
    case RunStatus::kPlanning: return "planning";
    case RunStatus::kCallingModel: return "calling_model";
    case RunStatus::kWaitingApproval: return "waiting_approval";
    case RunStatus::kRunningTools: return "running_tools";
    case RunStatus::kFinished: return "finished";
    case RunStatus::kFailed: return "failed";
  }
  return "starting";
}

class Agent::Impl {
 public:
  Impl(LlmClient& llm, const ToolRegistry& tools, AgentOptions options)
      : llm_(llm),
        tools_(tools),
        options_(std::move(options)),
        executor_(tools, ToolExecutorOptions{std::max(1, options_.tool_threads), options_.workspace}) {}

  std::vector<std::shared_ptr<Hooks>> hooks;
  std::shared_ptr<Approver> approver;

  Result<RunOutcome> run(std::string_view task, std::stop_token stop);

 private:
  template <class F>
  void emit(F&& f) {
    std::lock_guard<std::mutex> lock(hook_mutex_);
    for (auto& h : hooks) f(*h);
  }
  void set_status(RunContext& ctx, RunStatus s) {
    ctx.status = s;
    emit([&](Hooks& h) { h.on_status_changed(ctx, s); });
  }
  std::vector<std::string> plan(RunContext& ctx, std::string_view task, std::span<const ToolSpec> tools,
                                std::stop_token stop, RunOutcome& outcome);
  Event call_model(RunContext& ctx, ModelRequest request, std::stop_token stop, RunOutcome& outcome);
  Event ask_approval(RunContext& ctx, const AskApproval& ask, std::stop_token stop);
  Event run_tools(RunContext& ctx, const RunTools& run, std::stop_token stop, RunOutcome& outcome);

  LlmClient& llm_;
  const ToolRegistry& tools_;
  AgentOptions options_;
  ToolExecutor executor_;
  std::mutex hook_mutex_;
};

std::vector<std::string> Agent::Impl::plan(RunContext& ctx, std::string_view task, std::span<const ToolSpec> tools,
                                           std::stop_token stop, RunOutcome& outcome) {
  set_status(ctx, RunStatus::kPlanning);
  std::string names;
  for (const auto& t : tools) names += (names.empty() ? "" : ", ") + t.name;
  std::vector<Message> messages = {
      Message::system("You plan tool use for an agent. In at most three short lines, say which of these tools to use, "
                      "in what order, for the user's task. Tools: " + names + ". Do not solve the task."),
      Message::user(std::string(task))};
  ModelRequest request;
  request.history = messages;
  request.tools_enabled = false;
  request.round = 0;
  CallOptions call;
  call.stream = false;
  call.stop = stop;
  call.timeout_ms = options_.planner.timeout_ms;
  ++outcome.model_calls;
  Result<ModelReply> reply = llm_.complete(request, call);
  if (!reply.ok() || reply->text.empty()) {
    ctx.metadata["planner"] = "skipped: " + (reply.ok() ? std::string("empty reply") : reply.status().to_string());
    return {};
  }
  outcome.usage.prompt_tokens += reply->usage.prompt_tokens;
  outcome.usage.completion_tokens += reply->usage.completion_tokens;
  std::string text = reply->text.substr(0, 600);
  ctx.metadata["planner"] = text;
  return {"planner: " + text};
}

Event Agent::Impl::call_model(RunContext& ctx, ModelRequest request, std::stop_token stop, RunOutcome& outcome) {
  ctx.round = request.round;
  set_status(ctx, RunStatus::kCallingModel);
  emit([&](Hooks& h) { h.on_process_prompts(ctx, request); });
  if (stop.stop_requested()) return Aborted{"interrupted before the model call"};
  CallOptions call;
  call.stream = options_.stream;
  call.stop = stop;
  call.on_text = [&](std::string_view t) { emit([&](Hooks& h) { h.on_model_delta(ctx, t); }); };
  call.on_reasoning = [&](std::string_view t) { emit([&](Hooks& h) { h.on_reasoning_delta(ctx, t); }); };
  call.on_retry = [&](int attempt, const Status& why, int64_t delay) {
    emit([&](Hooks& h) { h.on_model_retry(ctx, attempt, why, delay); });
  };
  ++outcome.model_calls;
  Result<ModelReply> reply = llm_.complete(request, call);
  if (!reply.ok()) {
    if (stop.stop_requested()) return Aborted{"interrupted while waiting for the model"};
    return ModelFailed{reply.status()};
  }
  outcome.usage.prompt_tokens += reply->usage.prompt_tokens;
  outcome.usage.completion_tokens += reply->usage.completion_tokens;
  emit([&](Hooks& h) { h.on_model_reply(ctx, *reply); });
  return ModelReplied{std::move(reply).value()};
}

Event Agent::Impl::ask_approval(RunContext& ctx, const AskApproval& ask, std::stop_token stop) {
  set_status(ctx, RunStatus::kWaitingApproval);
  for (const auto& r : ask.requests) emit([&](Hooks& h) { h.on_approval_requested(ctx, r); });
  std::vector<ApprovalDecision> decisions;
  if (approver) {
    decisions = approver->decide(ask.requests, stop);
  } else {
    for (const auto& r : ask.requests) {
      decisions.push_back({r.call.id, ApprovalVerdict::kDeny, "approval is required and this host has no way to ask"});
    }
  }
  if (stop.stop_requested()) return Aborted{"interrupted while waiting for approval"};
  for (const auto& r : ask.requests) {
    auto it = std::find_if(decisions.begin(), decisions.end(), [&](const ApprovalDecision& d) { return d.call_id == r.call.id; });
    ApprovalDecision d = it != decisions.end() ? *it : ApprovalDecision{r.call.id, ApprovalVerdict::kDeny, "no approval decision was given"};
    emit([&](Hooks& h) { h.on_approval_decided(ctx, r, d); });
  }
  return ApprovalsGiven{std::move(decisions)};
}

Event Agent::Impl::run_tools(RunContext& ctx, const RunTools& run, std::stop_token stop, RunOutcome& outcome) {
  set_status(ctx, RunStatus::kRunningTools);
  outcome.tool_calls += static_cast<int>(run.calls.size());
  BatchCallbacks callbacks;
  callbacks.on_start = [&](const ToolCall& c) { emit([&](Hooks& h) { h.on_tool_call(ctx, c); }); };
  callbacks.on_finish = [&](const ToolCall& c, const ToolResult& r) { emit([&](Hooks& h) { h.on_tool_result(ctx, c, r); }); };
  std::vector<ToolResult> results = executor_.run_batch(run.calls, callbacks, stop);
  if (stop.stop_requested()) {
    return Aborted{"interrupted while " + std::to_string(run.calls.size()) + " tool call(s) were running; they were cancelled"};
  }
  return ToolsFinished{std::move(results)};
}

Result<RunOutcome> Agent::Impl::run(std::string_view task, std::stop_token stop) {
  auto started = std::chrono::steady_clock::now();
  KEEL_ASSIGN_OR_RETURN(Preflight preflight, Preflight::create(options_.intents));
  std::vector<ToolSpec> specs = tools_.specs();
  RunOutcome outcome;
  RunContext ctx;
  ctx.run_id = new_run_id();
  ctx.task = std::string(task);
  ctx.model = llm_.describe();
  emit([&](Hooks& h) { h.on_run_started(ctx); });

  SystemPromptParts parts;
  parts.core_instructions = options_.core_instructions;
  parts.tools = specs;
  parts.protocol = options_.config.tool_protocol;
  if (options_.load_agents_md) parts.project_instructions = read_agents_md(options_.workspace);
  parts.hints = preflight.hints(task, specs);
  if (options_.planner.enabled) {
    for (auto& h : plan(ctx, task, specs, stop, outcome)) parts.hints.push_back(std::move(h));
  }
  AgentMachine machine(options_.config, specs, build_system_prompt(parts), std::string(task), options_.parser);
  ctx.machine = &machine;
  emit([&](Hooks& h) { h.on_user_message(ctx, machine.history()[1]); });

  Decision decision = machine.start();
  for (;;) {
    for (const auto& g : decision.guards) emit([&](Hooks& h) { h.on_guard_fired(ctx, g); });
    if (auto* finish = std::get_if<Finish>(&decision.action)) {
      ResponseActions actions;
      emit([&](Hooks& h) { h.on_response_complete(ctx, finish->answer, actions); });
      if (actions.another_round) {
        emit([&](Hooks& h) { h.on_user_message(ctx, Message::user(actions.message)); });
        decision = machine.step(ContinueRequested{actions.message});
        continue;
      }
      outcome.ok = true;
      outcome.answer = finish->answer;
      break;
    }
    if (auto* fail = std::get_if<Fail>(&decision.action)) {
      outcome.ok = false;
      outcome.failure = fail->kind;
      outcome.error = fail->reason;
      break;
    }
    Event event = std::visit(
        Overloaded{
            [&](CallModel& c) -> Event { return call_model(ctx, std::move(c.request), stop, outcome); },
            [&](AskApproval& a) -> Event { return ask_approval(ctx, a, stop); },
            [&](RunTools& r) -> Event { return run_tools(ctx, r, stop, outcome); },
            [&](auto&) -> Event { return Aborted{"unreachable"}; },
        },
        decision.action);
    decision = machine.step(event);
  }
  outcome.rounds = machine.rounds_used();
  outcome.duration_ms = elapsed_ms(started);
  set_status(ctx, outcome.ok ? RunStatus::kFinished : RunStatus::kFailed);
  if (outcome.ok) {
    emit([&](Hooks& h) { h.on_run_finished(ctx, outcome); });
  } else {
    emit([&](Hooks& h) { h.on_run_failed(ctx, outcome); });
  }
  return outcome;
}

Agent::Agent(LlmClient& llm, const ToolRegistry& tools, AgentOptions options)
    : impl_(std::make_unique<Impl>(llm, tools, std::move(options))) {}
Agent::~Agent() = default;
void Agent::add_hooks(std::shared_ptr<Hooks> hooks) { impl_->hooks.push_back(std::move(hooks)); }
void Agent::set_approver(std::shared_ptr<Approver> approver) { impl_->approver = std::move(approver); }
Result<RunOutcome> Agent::run(std::string_view task, std::stop_token stop) { return impl_->run(task, stop); }

}  // namespace keel
