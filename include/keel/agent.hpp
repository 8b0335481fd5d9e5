// keel/agent.hpp — runs an agent: the pure core decides, the Agent does the I/O.
//
//   keel::ToolRegistry tools;
//   keel::register_builtin_tools(tools, {.workspace_root = "."});
//   auto llm = keel::make_openai_client({.base_url = "http://127.0.0.1:11434/v1", .model = "qwen2.5:7b"});
//   keel::Agent agent(*llm, tools, {.workspace = "."});
//   keel::Result<keel::RunOutcome> out = agent.run("list the files here");
//
// A run is bounded (AgentConfig::max_rounds), streams through hooks, runs each round's tool calls
// as one batch (parallel where the tools allow), asks the Approver for high-risk calls and stops
// promptly when the stop token is requested.
//
// Lifetime: the LlmClient and the ToolRegistry must outlive the Agent.
// Thread-safety: one run at a time per Agent; use one Agent per concurrent run.
#pragma once

#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "keel/approver.hpp"
#include "keel/core/agent_config.hpp"
#include "keel/core/token_counter.hpp"
#include "keel/core/preflight.hpp"
#include "keel/core/tool_call_parser.hpp"
#include "keel/hooks.hpp"
#include "keel/llm_client.hpp"
#include "keel/result.hpp"
#include "keel/tool_registry.hpp"

namespace keel {

class Store;

struct PlannerOptions {
  bool enabled = false;      // make a short planner model call before the first round
  int64_t timeout_ms = 2000; // the planner's deadline; on timeout or error the run goes on without it
};

struct AgentOptions {
  AgentConfig config;                  // loop limits and guardrails
  std::string workspace;               // AGENTS.md is read from here; tools get it as their root; empty: none
  std::string core_instructions;       // empty: keel's default instructions
  bool load_agents_md = true;          // add <workspace>/AGENTS.md as project instructions
  std::vector<IntentRule> intents = default_intent_rules();  // preflight intent rules
  PlannerOptions planner;
  bool stream = true;                  // ask the backend to stream
  int tool_threads = 4;                // pool size for concurrency-safe tool calls
  std::shared_ptr<const ToolCallParser> parser;  // text tool-call parser; nullptr: the default
  // Where sessions, runs, messages (each committed before the next model call), tool runs,
  // approvals and trace spans are kept; nullptr: nothing is persisted. Must outlive the Agent.
  Store* store = nullptr;
};

class Agent {
 public:
  Agent(LlmClient& llm, const ToolRegistry& tools, AgentOptions options);
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // Plugins are called in the order they were added.
  void add_hooks(std::shared_ptr<Hooks> hooks);
  // Decides approvals; without one, calls that need approval are denied with a message.
  void set_approver(std::shared_ptr<Approver> approver);

  // Runs `task` to an answer or an explicit failure, in a new session when there is a store. The
  // Result is an error only when the run could not start (e.g. an invalid intent pattern, a store
  // that cannot be written); every run failure is a RunOutcome with ok=false.
  Result<RunOutcome> run(std::string_view task, std::stop_token stop = {});
  // Runs `task` as the next turn of a stored session (needs a store; NotFound for an unknown id).
  Result<RunOutcome> continue_session(std::string_view session_id, std::string_view task, std::stop_token stop = {});
  // The next run starts by compacting its context, even if it fits (a user's /compact).
  void request_compaction();
  // Finishes a run that was interrupted (crash, kill, Ctrl-C) from its last committed message.
  // FailedPrecondition when the run has already ended or a later run exists in its session.
  Result<RunOutcome> resume(std::string_view run_id, std::stop_token stop = {});

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace keel
