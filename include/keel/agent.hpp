// keel/agent.hpp — runs an agent: the pure core decides, the Agent does the I/O.
//
//   keel::ToolRegistry tools;
//   keel::register_builtin_tools(tools, {.workspace_root = "."});
//   auto llm = keel::make_openai_client({.base_url = "http://127.0.0.1:11434/v1", .model = "qwen2.5:7b"});
//   keel::Agent agent(*llm, tools, {.workspace = "."});
//   keel::Result<keel::RunOutcome> out = agent.run("list the files here");
//
// A run is bounded (AgentConfig::max_rounds), streams through hooks, runs each round's tool calls
// as one batch (parallel where the tools allow), applies the approval policy to every call (asking
// the Approver where it says confirm, by default for high-risk tools) and stops promptly when the
// stop token is requested.
//
// Lifetime: the LlmClient and the ToolRegistry must outlive the Agent.
// Thread-safety: one run at a time per Agent; use one Agent per concurrent run.
#pragma once

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "keel/approver.hpp"
#include "keel/config.hpp"
#include "keel/core/agent_config.hpp"
#include "keel/core/token_counter.hpp"
#include "keel/core/preflight.hpp"
#include "keel/core/tool_call_parser.hpp"
#include "keel/core/secret_redactor.hpp"
#include "keel/hooks.hpp"
#include "keel/knowledge_skills.hpp"
#include "keel/llm_client.hpp"
#include "keel/result.hpp"
#include "keel/store/records.hpp"
#include "keel/tool_registry.hpp"

namespace keel {

class Store;

// Enabled, it turns on AgentConfig::planner for the agent's runs (the machine then asks for the
// planner call first; keel/core/decision.hpp CallPlanner).
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
  // Where sessions, runs, messages (each step written in one transaction while the run goes on,
  // and always before a tool with side effects acts), tool runs, approvals, remembered approval
  // decisions and trace spans are kept, and where cacheable tools' results are cached; nullptr:
  // nothing is persisted. Must outlive the Agent. All is written when run() returns.
  Store* store = nullptr;
  // Which calls run, are asked about or are refused (see keel/config.hpp). Each run applies it
  // with the decisions remembered for `workspace` in `store`; an invalid pattern makes run()
  // fail with InvalidArgument. Not used when config.approval_gate is set: that gate alone decides.
  ApprovalPolicy approvals = {};
  // Sub-agents (keel/spawn_agent.hpp): the nesting depth of this agent (0: top level), handed to
  // its tools; and, when set, the stored session a new session belongs to (it is then hidden from
  // normal session lists).
  int depth = 0;
  std::string parent_session_id = {};
  // The tools this agent may call, by name; empty: every tool in the registry.
  std::vector<std::string> tool_allowlist = {};
  // Knowledge skills (keel/knowledge_skills.hpp). Each run's system prompt gets a Skills section
  // with the enabled ones' names and descriptions and the bodies of those whose triggers match the
  // task, within skill_disclosure's budgets of config.context.context_window. Register load_skill
  // (register_load_skill_tool) with the same skills so the model can read the others; the section
  // only mentions load_skill when the agent has it. Empty: no section.
  std::vector<KnowledgeSkill> knowledge_skills = {};
  SkillDisclosureOptions skill_disclosure = {};
  // Asked when a run ends because its stop token was requested. True: the run is suspended, not
  // aborted: its stored state stays resumable (Agent::resume) and RunOutcome::suspended is set. A
  // host that checkpoints runs answers true (a server parking a run that waits for a person, or
  // shutting down); nullptr: every stop aborts.
  std::function<bool()> suspend_on_stop = {};
  // The secrets (API keys, tokens, passwords) whose values are replaced by "[REDACTED:NAME]" in
  // every tool result (output and error) and in the model backend's error messages, before the
  // model, the hooks (events) or the store see them. The assembly layer fills it from the
  // environment and the configuration (keel/assembly/secrets.hpp); nullptr: nothing is redacted.
  std::shared_ptr<const SecretRedactor> redactor = nullptr;
  // Receives each finished run's trace spans (named per OpenTelemetry's GenAI conventions), the
  // run's own span last, on the thread that ran it: the assembly layer passes them to its OTLP
  // exporter when OTEL_EXPORTER_OTLP_ENDPOINT (or KEEL_OTLP_FILE) is set. Spans are kept only
  // with a store; nullptr: nothing is passed on.
  std::function<void(std::vector<SpanRecord>)> on_trace = nullptr;
};

// How a stored run is taken up again.
struct ResumeOptions {
  // The host knows that the last round's calls without a result never started (it suspended the
  // run before them, e.g. while it waited for an approval): they go through the approval policy
  // again and run. Otherwise (a crash) only read-only ones are run again and the others are
  // reported to the model as interrupted.
  bool calls_not_started = false;
};

// Per-run choices a host makes before the run starts.
struct RunStartOptions {
  // The id the new run is stored under ("r_" and 32 hex digits, unused); empty: a new random one.
  // A host that answers before the run begins (the server's 202) picks it.
  std::string run_id;
  // Messages that join the stored session as this run's first ones, before its task: the results
  // of the client-side calls the previous run handed over (Role::kTool messages answering them).
  // With an empty task the run goes on from them.
  std::vector<Message> added;
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
  // Remembers a standing answer for this agent's workspace: always allow (kAllow) or always deny
  // (kDeny) calls of `tool`, or only those whose approval subject matches `pattern` (RE2, partial
  // match; shell: the command line, other tools: the canonical JSON arguments; empty: every call).
  // It is saved in the store (when there is one; `keel approvals list` shows it) and applies to
  // the run in progress from its next call on. Approvers call it from decide() for answers such
  // as "never"; an "allow always" verdict is remembered without it. May be called during a run
  // (from any thread) or between runs. InvalidArgument for another verdict, an empty tool or a
  // pattern that does not compile; the store's error when the rule cannot be saved.
  Status remember_approval(std::string_view tool, std::string_view pattern, ApprovalVerdict verdict);

  // Runs `task` to an answer or an explicit failure, in a new session when there is a store. The
  // Result is an error only when the run could not start (e.g. an invalid intent pattern, a store
  // that cannot be written); every run failure is a RunOutcome with ok=false.
  Result<RunOutcome> run(std::string_view task, std::stop_token stop = {});
  // Tools the caller runs itself (a client's tools, sent with an API request): offered to the
  // model in this agent's following runs next to its own. A round that calls one ends the run
  // once keel's own calls of that round have run; RunOutcome::client_calls hands the calls over,
  // and the caller continues with their results (run_after or continue_session with an empty
  // task). Each spec is marked client_side. InvalidArgument, naming the tool, for a bad name, a
  // duplicate, a name one of the agent's own tools has, or parameters that are not a JSON object.
  Status set_client_tools(std::vector<ToolSpec> tools);

  // Runs `task` as the next turn of a stored session (needs a store; NotFound for an unknown id).
  // With RunStartOptions::added and an empty task, continues after client-side calls instead.
  Result<RunOutcome> continue_session(std::string_view session_id, std::string_view task, std::stop_token stop = {},
                                      RunStartOptions start = {});
  // Runs `task` after a conversation the caller supplies (an OpenAI-style request's messages:
  // user, assistant with tool calls, tool results; a system message in it is ignored, keel builds
  // its own), in a new session when there is a store. With an empty `task` the run goes on from
  // the conversation's tail, which must be tool results answering every call of its last
  // assistant message (a client's results for the client-side calls it was handed);
  // InvalidArgument otherwise.
  Result<RunOutcome> run_after(std::vector<Message> earlier, std::string_view task, std::stop_token stop = {});
  // Queues guidance for the run in progress (seed 000's steering buffer): it becomes a user
  // message before the next model call, or, when the model has just answered, a further round.
  // Thread-safe. False when no run is in progress (the text is dropped).
  bool steer(std::string text);
  // The next run starts by compacting its context, even if it fits (a user's /compact).
  void request_compaction();
  // Finishes a run that was interrupted (crash, kill, Ctrl-C) from its last committed message.
  // FailedPrecondition when the run has already ended or a later run exists in its session.
  Result<RunOutcome> resume(std::string_view run_id, std::stop_token stop = {}, ResumeOptions options = {});

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace keel
