// keel/core/agent_machine.hpp — the agent's decisions as a pure state machine.
//
// The machine owns the conversation and decides; the host (keel::Agent, the server, a browser)
// performs the I/O each Decision asks for and feeds the outcome back as an Event:
//
//   keel::AgentMachine m(config, tools, system_prompt, "list the files");
//   keel::Decision d = m.start();                      // CallModel
//   d = m.step(keel::ModelReplied{reply});             // RunTools / AskApproval / Finish / ...
//   d = m.step(keel::ToolsFinished{results});          // CallModel (round 2, with continuation)
//
// Guarantees: no I/O, no clock, no randomness — the same events give the same decisions; the
// loop is bounded (at most max_rounds tool rounds, then one final call without tools); every
// guardrail that fires is reported in Decision::guards. An event the current phase cannot accept
// yields Fail{kInternal} instead of undefined behaviour. After Finish or Fail the machine is done
// and further events are rejected the same way.
//
// Thread-safety: not thread-safe; one host drives one machine.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "keel/core/agent_config.hpp"
#include "keel/core/context_manager.hpp"
#include "keel/core/decision.hpp"
#include "keel/core/event.hpp"
#include "keel/core/plan.hpp"
#include "keel/core/tool_call_parser.hpp"
#include "keel/message.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

enum class AgentPhase {
  kIdle,              // start() not called yet
  kAwaitingPlanner,   // a CallPlanner is outstanding
  kAwaitingModel,     // a CallModel is outstanding
  kAwaitingApproval,  // an AskApproval is outstanding
  kAwaitingTools,     // a RunTools is outstanding
  kAwaitingSummary,   // a Summarize is outstanding
  kFinished,          // Finish was decided
  kFailed,            // Fail was decided
};

// "idle", "awaiting_planner", "awaiting_model", "awaiting_approval", "awaiting_tools", "awaiting_summary", "finished",
// "failed".
std::string_view agent_phase_name(AgentPhase phase);

class AgentMachine {
 public:
  // `parser` reads calls written as text; nullptr uses the default parser.
  AgentMachine(AgentConfig config, std::vector<ToolSpec> tools, std::string system_prompt, std::string task,
               std::shared_ptr<const ToolCallParser> parser = nullptr);

  // Continues a conversation: `earlier` are the messages of earlier runs (a leading system
  // message is replaced by `system_prompt`); `task` starts this run.
  AgentMachine(AgentConfig config, std::vector<ToolSpec> tools, std::string system_prompt, std::vector<Message> earlier,
               std::string task, std::shared_ptr<const ToolCallParser> parser = nullptr);

  // Finishes an interrupted run: `conversation` is everything committed so far (a leading system
  // message is replaced by `system_prompt`), `run_start` the index in it of the run's task
  // message. start() then decides from the tail: a pending round's missing results (read-only
  // calls run again; others are reported to the model as interrupted), the next model call, or
  // Finish when the run had already answered. Counters of the run are rebuilt from its
  // messages; run-wide guard memory (failure counts, duplicates) starts afresh. With
  // `calls_not_started` the host knows that the pending round's calls without a result never
  // began (it parked the run before them): they go through the approval gate again and run.
  // Continues a conversation in which a client-side tool's calls (ToolSpec::client_side) were
  // handed to the caller: `earlier` as above, then `added` (the caller's results, and anything
  // else that belongs to this run before its task) committed as this run's first messages, then
  // `task` when it is not empty. Without a task the run goes on from the tail: start() asks the
  // model for its next step. The host checks that the tail answers every handed-over call.
  static AgentMachine continuing(AgentConfig config, std::vector<ToolSpec> tools, std::string system_prompt,
                                 std::vector<Message> earlier, std::vector<Message> added, std::string task,
                                 std::shared_ptr<const ToolCallParser> parser = nullptr);

  static AgentMachine resuming(AgentConfig config, std::vector<ToolSpec> tools, std::string system_prompt,
                               std::vector<Message> conversation, size_t run_start,
                               std::shared_ptr<const ToolCallParser> parser = nullptr,
                               bool calls_not_started = false);

  // The first decision: CallPlanner when AgentConfig::planner is enabled, else CallModel for
  // round 1 (or, when resuming, whatever the tail needs; a resumed run is never planned).
  Decision start();
  // Advances the machine with the outcome of the last decision.
  Decision step(const Event& event);

  AgentPhase phase() const { return phase_; }
  bool done() const { return phase_ == AgentPhase::kFinished || phase_ == AgentPhase::kFailed; }
  // Model calls made so far with tools enabled (the final forced call is not counted).
  int rounds_used() const { return rounds_used_; }
  // Model calls made so far in this run (a resumed run counts the ones before it stopped).
  int model_calls() const { return model_calls_; }
  const AgentConfig& config() const { return config_; }
  // The working conversation (context compaction may have digested or dropped old parts).
  const std::vector<Message>& history() const { return history_; }
  // Index in history() of this run's first message (its task).
  size_t run_start() const { return run_start_; }
  // Whether this run has a task message of its own (a continuation after client-side calls may not).
  bool has_task() const { return has_task_; }
  std::span<const ToolSpec> tools() const { return tools_; }
  // Compacts the context before the next model call even if it fits (e.g. a user's /compact):
  // as if the window were half of what the history takes now.
  void request_compaction() { force_compaction_ = true; }
  // Guidance the user sent while the run works (steering): it is committed as a user message
  // right before the next model call, after any tool results of the round in flight.
  void add_guidance(std::string text) { pending_guidance_.push_back(std::move(text)); }
  // Standing denial constraints recorded so far.
  const std::vector<std::string>& denials() const { return denials_; }

 private:
  AgentMachine(AgentConfig config, std::vector<ToolSpec> tools, std::shared_ptr<const ToolCallParser> parser);
  void adopt(std::string system_prompt, std::vector<Message> earlier);
  // Appends to the conversation and to the messages the next Decision reports as committed.
  void commit(Message m);
  Decision decide(Action action);
  Decision resume_from_tail();
  // One call of the round in progress and what became of it.
  struct PendingCall {
    enum class State { kRun, kApprove, kSettled, kClient };  // kClient: handed to the caller
    ToolCall call;
    const ToolSpec* spec = nullptr;  // points into tools_
    std::string canonical;           // canonical arguments; empty when they were invalid
    State state = State::kSettled;
    std::string approval_reason;     // kApprove: why approval is asked for
    bool ran = false;                // the host executed it (as opposed to a synthetic result)
    std::optional<ToolResult> result;
  };
  Decision on_model_reply(const ModelReply& reply);
  Decision on_approvals(const ApprovalsGiven& given);
  Decision on_tools_finished(const ToolsFinished& done);
  Decision on_continue(const ContinueRequested& req);
  Decision finish_final_round(const std::string& text, const std::string& reasoning, bool wanted_tools);
  // A reply whose call (or, with `plan`, whose plan) cannot be used: one repair round, then failure.
  Decision malformed_call(const std::string& raw, const std::string& error, bool plan = false);
  Decision no_usable_call(const std::string& why);
  Decision dispatch_tools();
  // After classify_call() on every call of the round: asks about those that need approval, or runs them.
  Decision ask_or_dispatch();
  Decision close_round();
  // Plans (agent_machine_plan.cpp): a reply that is a whole plan runs step by step, each step a
  // one-call round of its own; the hydrated reply is the answer.
  Decision start_plan(Plan plan, const std::string& raw, const std::string& reasoning);
  Decision run_plan_step();
  Decision continue_plan(std::string full_output);
  // Stops the plan at step `index` (Failed, later steps Skipped), tells the model why and asks it
  // for the next move.
  Decision halt_plan(size_t index, std::string why);
  void plan_update(size_t index, PlanStepState state, std::string detail = {});
  // Runs the context pipeline (which may ask for a summary first), then call_model().
  Decision next_model_call();
  Decision call_model();
  Decision on_summary(const std::string* text, const Status* error);
  void note_compaction(CompactionReport report);
  Decision finish(std::string answer, const std::string& reasoning);
  Decision fail(FailureKind kind, std::string reason);
  Decision reject(const char* event_name);
  // The planner (agent_machine_planner.cpp): asked before round 1 when AgentConfig::planner is
  // enabled; its plan becomes a hint in the system prompt. The CallPlanner decision commits
  // nothing: the system prompt and the task are committed with the next decision, the plan in it.
  Decision ask_planner();
  Decision on_planner(const std::string* text, const Status* error);
  void classify_call(size_t index);
  // Settles a call as refused: a denied result, a permission_denied guard and a standing
  // constraint for the rest of the run.
  void deny_call(PendingCall& pc, std::string reason);
  void record_result(PendingCall& pc);
  // Postconditions (agent_machine_postcondition.cpp): an ok result of a tool that declares them
  // is checked on its full output. A failure becomes an error result with the stricter hint, a
  // postcondition_failed guard and a guard note; the same tool failing again in a later round
  // sets postcondition_fail_, and close_round() then ends the run.
  void enforce_postconditions(PendingCall& pc);
  Decision fail_on_postcondition();
  const ToolSpec* find_tool(const std::string& name) const;
  // Why no further model call may start (RunBudget), or nullopt.
  std::optional<std::string> budget_spent() const;

  AgentConfig config_;
  std::vector<ToolSpec> tools_;
  Usage used_;                    // what the model calls so far reported (RunBudget)
  bool has_deferred_ = false;     // some tools are offered only once loaded (deferred_tools.hpp)
  std::vector<ToolSpec> offered_;  // with deferred tools: what the last model call offers
  std::shared_ptr<const ToolCallParser> parser_;
  std::vector<Message> history_;
  std::vector<Message> committed_;  // appended since the last Decision
  size_t run_start_ = 1;
  bool has_task_ = true;
  bool resuming_ = false;
  bool resume_calls_not_started_ = false;
  AgentPhase phase_ = AgentPhase::kIdle;
  int rounds_used_ = 0;
  int model_calls_ = 0;
  bool final_round_ = false;
  std::string last_answer_;
  int empty_replies_ = 0;
  int repair_rounds_ = 0;  // repair rounds since the last usable reply (at most one)

  // The round in progress.
  std::vector<PendingCall> round_calls_;
  std::string round_text_;                // the text of the reply that made the round's calls
  bool handed_over_ = false;              // the run finished handing client-side calls to the caller
  std::vector<GuardEvent> guards_;        // fired during the current step
  std::vector<GateDecision> gate_decisions_;  // the gate's own verdicts during the current step
  std::vector<std::string> guard_notes_;  // for the next continuation prompt
  std::vector<std::string> tool_summary_;
  std::string correction_;
  bool injection_warning_ = false;

  // Run-wide memory.
  std::vector<std::string> denials_;
  std::set<std::string> always_allowed_;           // tool names approved "always"
  std::map<std::string, int> failure_counts_;      // signature -> failures
  std::set<std::string> disabled_signatures_;
  std::map<std::string, int> postcondition_failed_in_;  // tool -> model call of its first postcondition failure
  std::optional<std::string> postcondition_fail_;       // why the run ends, once a tool failed them twice
  struct SuccessfulCall {
    std::string tool;
    std::string canonical;
    std::string call_id;
  };
  std::vector<SuccessfulCall> successful_calls_;  // since the last state-changing call

  // Context pipeline.
  ContextManager context_;
  std::optional<ContextManager> forced_context_;  // the manager of a requested compaction in progress
  bool force_compaction_ = false;
  std::vector<std::string> pending_guidance_;
  std::optional<SummaryRequest> pending_summary_;
  CompactionReport compaction_so_far_;            // stages applied before the pending summary
  std::optional<CompactionReport> compaction_;    // reported with the next Decision
  // The plan being run, if any.
  struct PlanRun {
    Plan plan;
    // No default member initializers here: clang cannot default-construct a nested class that
    // has them inside std::optional of the enclosing class; emplace() value-initializes.
    size_t next;  // the step running (or to run)
    PlanResults results;
    std::string raw;        // the reply that held the plan
    std::string reasoning;
    std::string call_id;    // the call of the running step
    std::string arguments;  // its resolved arguments
  };
  std::optional<PlanRun> plan_;
  std::vector<PlanStepUpdate> plan_updates_;      // reported with the next Decision
  std::vector<Message> planner_messages_;          // what the outstanding CallPlanner's request borrows
  std::optional<PlannerOutcome> planner_;          // reported with the next Decision
};

}  // namespace keel
