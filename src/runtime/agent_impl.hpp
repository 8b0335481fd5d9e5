// Private to the runtime: the state behind keel::Agent, shared by agent.cpp (the run loop and
// the model and tool steps) and agent_approvals.cpp (approvals and the policy gate).
//
// Thread-safety: one run at a time; hooks are called under hook_mutex_; the gate of the run in
// progress is reached under gate_mutex_ so remember_approval() may come from another thread.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "keel/agent.hpp"
#include "keel/core/agent_machine.hpp"
#include "keel/core/universal_parser.hpp"
#include "keel/tool_executor.hpp"
#include "runtime/approval_policy.hpp"
#include "runtime/session_recorder.hpp"

namespace keel {

class Agent::Impl {
  static ToolExecutorOptions executor_options(const AgentOptions& o) {
    ToolExecutorOptions e;
    e.threads = std::max(1, o.tool_threads);
    e.workspace_root = o.workspace;
    e.redactor = o.redactor;  // every tool's output and error, before hooks, the store or the model see it
    return e;
  }

 public:
  Impl(LlmClient& llm, const ToolRegistry& tools, AgentOptions options)
      : llm_(llm),
        tools_(tools),
        options_(std::move(options)),
        executor_(tools, executor_options(options_)),
        counter_(options_.config.token_counter ? options_.config.token_counter
                                               : std::make_shared<EstimatingTokenCounter>()) {
    options_.config.token_counter = counter_;
  }

  std::vector<std::shared_ptr<Hooks>> hooks;
  std::vector<ToolSpec> client_tools;  // Agent::set_client_tools
  std::shared_ptr<Approver> approver;
  // `status` with the values of AgentOptions::redactor's secrets replaced in its message.
  Status redacted(const Status& status) const {
    if (!options_.redactor || status.ok()) return status;
    return Status(status.code(), options_.redactor->redact(status.message()));
  }
  // Agent::remember_approval(): checks the rule, applies it to the run in progress, saves it.
  Status remember_approval(ApprovalRule rule);

  // How a run begins: fresh, as the next turn of a stored session, or resuming a stored run.
  struct Start {
    enum class Kind { kNew, kContinue, kResume } kind = Kind::kNew;
    std::string task;
    std::string id;               // the session (kContinue) or run (kResume)
    std::vector<Message> earlier;  // kNew: a conversation the caller supplied
    std::string run_id;           // kContinue: the id the new run gets (empty: a new one)
    std::vector<Message> added;   // kContinue: messages of this run before its task (client results)
    bool calls_not_started = false;  // kResume: ResumeOptions::calls_not_started
  };
  // The registry's tools this agent may call (AgentOptions::tool_allowlist applied).
  std::vector<ToolSpec> own_tools() const;
  // Agent::steer(): queues guidance for the run in progress; false when none is.
  bool steer(std::string text);
  Result<RunOutcome> run(const Start& start, std::stop_token stop);

  class HookedGate;
  // Hooks' decision points (agent_hook_points.cpp). `inner` wrapped so that on_tool_use decides
  // first (nullptr inner: the risk threshold); also forgets the previous run's rewrites.
  std::shared_ptr<const ApprovalGate> hooked_gate(RunContext& ctx, std::shared_ptr<const ApprovalGate> inner,
                                                  Risk threshold);
  ToolUseDecision tool_use(RunContext& ctx, const ToolCall& call, const ToolSpec& spec);
  PromptActions prompt_submitted(RunContext& ctx, const std::string& task);
  // `args` against the registry's schema of `tool` (OK for a tool not in the registry).
  Status validate_arguments(const std::string& tool, const nlohmann::json& args) const;
  void set_rewrite(const std::string& call_id, std::string arguments);
  // `call` with the arguments a hook rewrote it to, if any.
  ToolCall rewritten(const ToolCall& call);

 private:
  // Drives the machine until it finishes or fails. `announce_task`: report the run's task as a user
  // message (not for a resumed run) once the planner, if any, has answered.
  void drive(RunContext& ctx, AgentMachine& machine, detail::SessionRecorder* recorder, std::stop_token stop,
             RunOutcome& outcome, bool announce_task);
  template <class F>
  void emit(F&& f) {
    std::lock_guard<std::mutex> lock(hook_mutex_);
    for (auto& h : hooks) f(*h);
  }
  void set_status(RunContext& ctx, RunStatus s) {
    ctx.status = s;
    emit([&](Hooks& h) { h.on_status_changed(ctx, s); });
  }
  Event call_planner(RunContext& ctx, const CallPlanner& p, std::stop_token stop, RunOutcome& outcome);
  Event call_model(RunContext& ctx, ModelRequest request, detail::SessionRecorder* recorder, std::stop_token stop,
                   RunOutcome& outcome);
  Event summarize(RunContext& ctx, const Summarize& s, detail::SessionRecorder* recorder, std::stop_token stop,
                  RunOutcome& outcome);
  Event ask_approval(RunContext& ctx, const AskApproval& ask, detail::SessionRecorder* recorder, std::stop_token stop);
  // Reports and records what keel's policy gate decided on its own in `decision`
  // (Decision::gate_decisions); nothing when the run uses a gate of the application's.
  void log_gate_decisions(RunContext& ctx, const Decision& decision, detail::SessionRecorder* recorder);
  std::shared_ptr<detail::ApprovalPolicyGate> gate() {
    std::lock_guard<std::mutex> lock(gate_mutex_);
    return gate_;
  }
  void set_gate(std::shared_ptr<detail::ApprovalPolicyGate> gate) {
    std::lock_guard<std::mutex> lock(gate_mutex_);
    gate_ = std::move(gate);
  }
  // Whether every call of `run` is to a known tool whose spec has `flag` set: read_only (safe to
  // repeat after a crash), bounded (done at once).
  bool every_tool(const RunTools& run, bool ToolSpec::*flag) const;
  Event run_tools(RunContext& ctx, const RunTools& run, detail::SessionRecorder* recorder, std::stop_token stop,
                  RunOutcome& outcome);
  // The parser whose rules decide what of a streamed reply is shown (see CallStreamFilter): the
  // agent's own when it is the universal one, the default one when none is set, else nullptr
  // (a parser of the application's: its markup is unknown, the text streams as it comes).
  const UniversalToolCallParser* stream_parser();
  // The gen_ai.* attributes of the backend `description` names (detail::backend_attributes), worked
  // out once rather than on every model call's span.
  const nlohmann::json& backend_span_attributes(const std::string& description);

  LlmClient& llm_;
  const ToolRegistry& tools_;
  AgentOptions options_;
  ToolExecutor executor_;
  std::shared_ptr<const TokenCounter> counter_;
  std::mutex hook_mutex_;
  std::mutex gate_mutex_;
  std::shared_ptr<detail::ApprovalPolicyGate> gate_;  // the policy of the run in progress, if any
  std::shared_ptr<const UniversalToolCallParser> stream_parser_;  // made on the first streamed call with tools
  bool stream_parser_made_ = false;
  std::string backend_described_;       // the description backend_attributes_ were worked out for
  nlohmann::json backend_attributes_;
  std::mutex steer_mutex_;
  bool running_ = false;                // a run is in progress (steering is accepted)
  std::vector<std::string> steering_;   // guidance not yet handed to the machine
  std::vector<std::string> take_steering();
  void set_running(bool running);
  std::mutex rewrite_mutex_;
  std::map<std::string, std::string> rewrites_;  // call id -> arguments a hook rewrote them to (this run)
  bool manual_compaction_ = false;               // the next summary was asked for by request_compaction()

 public:
  std::atomic<bool> force_compaction_{false};
};

}  // namespace keel
