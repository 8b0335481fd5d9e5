// keel/assembly.hpp — the one way to build an agent from configuration, for every host.
//
//   keel::assembly::HostInputs in;            // what the host read: flags that override keel.yaml
//   in.model = "openai/gpt-4o-mini";
//   keel::assembly::HostOptions host;         // how this host differs (stated, not implied)
//   host.store = false;                      // nothing kept in keel.db
//   auto built = keel::assembly::AssembledAgent::create(in, host);
//   if (built.ok()) (*built)->agent().run("list the files here");
//
// Every host goes through here: `keel run`, `chat`, `resume`, `mcp serve`'s run_agent and
// `keel serve` (which calls the same pieces per profile and per run). Configuration resolves once
// (flags, environment, keel.yaml, the user's config); the backend or lanes, the store, the tools
// (built-ins, MCP servers, skills), the approval policy and the hooks all come from it. A host
// adds only what it presents (output hooks) and who answers (its approver and asker).
//
// Lifetime: an AssembledAgent owns everything its Agent borrows.
// Thread-safety: one run at a time per AssembledAgent.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "keel/agent.hpp"
#include "keel/ask_user.hpp"
#include "keel/builtin_tools.hpp"
#include "keel/config.hpp"
#include "keel/hooks.hpp"
#include "keel/llm_client.hpp"
#include "keel/mcp.hpp"
#include "keel/result.hpp"
#include "keel/skill_runner.hpp"
#include "keel/store/store.hpp"
#include "keel/tool_registry.hpp"

namespace keel::assembly {

// What a host read from its user: each set field overrides the environment and the config files.
struct HostInputs {
  std::optional<std::string> model, base_url, api_key;
  std::optional<std::string> workspace;     // unset: the current directory
  std::optional<int> max_rounds;
  std::optional<int64_t> max_tokens;        // the run's token cap (RunBudget)
  std::optional<double> max_cost;           // the run's cost cap, in the prices' currency
  std::optional<std::string> approve_mode;  // auto | confirm | deny for every tool of the run
  std::optional<std::string> sandbox;       // workspace-write | read-only | off: the shell sandbox of the run
  std::optional<bool> stream;               // false: whole replies
};

// Where hosts differ. Each field is a documented difference between hosts, not a drift.
struct HostOptions {
  // Open keel's database ($KEEL_HOME/keel.db). false: nothing is stored (keel run --ephemeral),
  // and so no memory/todo tools, no saved KV cache.
  bool store = true;
  // Who answers ask_user: the CLI's terminal, keel serve's web UI. nullptr: nobody (the tool
  // says so). Approvals are the host's too: AssembledAgent::set_approver.
  std::shared_ptr<UserAsker> asker;
  // Offer spawn_agent. It binds one backend and one approver at registration, so a host whose
  // registry is shared by concurrent runs with their own approvers (keel serve) leaves it out.
  bool spawn_agent = true;
  // Warnings while assembling (a skill that does not load, an MCP server that did not start).
  std::function<void(const std::string&)> notice;
  // An editor that serves fs_read and fs_write (keel acp with the client's fs capability);
  // nullptr: the disk.
  std::shared_ptr<TextFileAccess> text_files;
};

// The options and hooks an Agent is built with; hosts add their presentation hooks after these.
struct AgentBlueprint {
  AgentOptions options;
  std::vector<std::shared_ptr<Hooks>> hooks;
  // What sub-agents (spawn_agent) run with: the settings files' command hooks, so that their
  // tool calls meet the same PreToolUse hooks as the parent's.
  std::vector<std::shared_ptr<Hooks>> subagent_hooks;
  // Set when the configuration cannot be honoured (a hooks settings file that is not usable, named
  // in the message): hosts do not run the agent and report this instead.
  Status problem = Status::Ok();
};

// A host-independent description of an agent: its options, tools and hooks as JSON, so two hosts
// can be shown to assemble the same agent from the same configuration.
nlohmann::json describe_agent(const AgentBlueprint& blueprint, const ToolRegistry& tools);

// The tools of a workspace (built-ins, MCP servers' tools, load_skill and run_skill) with what
// they need kept alive. Shared by every agent of a host.
class Toolbox {
 public:
  // The workspace's tools from `config`. `skills_llm` runs executable skills (it must outlive the
  // toolbox). Errors: a tool name clash.
  static Result<std::unique_ptr<Toolbox>> create(const KeelConfig& config, const std::string& workspace, Store* store,
                                                 LlmClient& skills_llm, const HostOptions& host);
  ~Toolbox();
  ToolRegistry& registry() { return *registry_; }
  const ToolRegistry& registry() const { return *registry_; }
  const std::vector<KnowledgeSkill>& knowledge_skills() const { return knowledge_; }
  // id, description and approval of each executable skill (empty when run_skill is not offered).
  const nlohmann::json& executable_skills() const { return executable_; }
  bool runs_skills() const { return skills_ != nullptr; }

 private:
  Toolbox() = default;
  std::unique_ptr<McpHub> mcp_;  // before registry_: the MCP tools call through it
  std::unique_ptr<ToolRegistry> registry_;
  std::unique_ptr<SkillRunner> skills_;  // run_skill's runner; it calls actions through registry_
  std::vector<KnowledgeSkill> knowledge_;
  nlohmann::json executable_ = nlohmann::json::array();
};

// The one mapping from configuration to an agent's options and hooks: loop limits, planner,
// context policy and prompts, intents, approvals, knowledge skills, exact token counts, the
// local model's saved KV cache and the command hooks of the settings files (trusted ones only;
// see the README's Hooks section). `llm` is the backend the agent runs on. Warnings go to host.notice.
AgentBlueprint agent_blueprint(const KeelConfig& config, const std::string& workspace, Store* store,
                               const Toolbox& tools, LlmClient& llm, const HostOptions& host);

// A function that may wrap the backend before anything uses it (keel run --record).
using BackendWrapper = std::function<Result<std::unique_ptr<LlmClient>>(std::unique_ptr<LlmClient>)>;

// An agent and everything it borrows.
class AssembledAgent {
 public:
  // Resolves the configuration for `in` and builds the agent. Errors are usage, configuration or
  // database problems, worded for the user.
  static Result<std::unique_ptr<AssembledAgent>> create(const HostInputs& in, const HostOptions& host,
                                                        const BackendWrapper& wrap_backend = nullptr);
  ~AssembledAgent();
  Agent& agent() { return *agent_; }
  LlmClient& llm() { return *llm_; }
  Store* store() { return store_.get(); }
  const KeelConfig& config() const { return config_; }
  const std::string& workspace() const { return workspace_; }
  const Toolbox& toolbox() const { return *toolbox_; }
  const AgentBlueprint& blueprint() const { return blueprint_; }
  // Registers spawn_agent (when HostOptions::spawn_agent) with the approver the host chose, and
  // sets it on the agent. Call once, after adding the host's hooks.
  Status set_approver(std::shared_ptr<Approver> approver);

 private:
  AssembledAgent() = default;
  HostOptions host_;
  KeelConfig config_;
  std::string workspace_;
  std::unique_ptr<LlmClient> llm_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Toolbox> toolbox_;
  AgentBlueprint blueprint_;
  std::unique_ptr<Agent> agent_;
};

// Configuration for `in` in `workspace`: the process environment and HOME fill the rest.
Result<KeelConfig> resolve_host_config(const HostInputs& in, const std::string& workspace);

// The backend `config` names: the rules model, a cassette replay (replay:FILE), the Anthropic,
// an OpenAI-compatible or the local llama.cpp client, or the cascade of keel.yaml's lanes.
// InvalidArgument for unusable client options or an unreadable cassette.
Result<std::unique_ptr<LlmClient>> make_backend(const KeelConfig& config);
// True when the backend is keel.yaml's lanes: lanes are set and --model was not given.
bool uses_lanes(const KeelConfig& config);
// True when the run's backend is the built-in rules model.
bool uses_rules_model(const KeelConfig& config);

// The workspace folder: the flag, else the current directory, made absolute and canonical.
// InvalidArgument when it does not exist or is not a directory.
Result<std::string> resolve_workspace(const std::optional<std::string>& flag);

// The workspace a stored session (s_…) or run (r_…) worked in, so that continuing or resuming
// it without --workspace uses the same folder; nullopt when unknown or when it no longer exists.
std::optional<std::string> stored_workspace(const std::string& id);

// An editable prompt: <workspace>/.keel/prompts/NAME, else the user's
// $XDG_CONFIG_HOME/keel/prompts/NAME (~/.config/...); empty (keel's default) when neither exists.
std::string load_prompt(const std::string& name, const std::string& workspace,
                        const std::map<std::string, std::string>& env);

}  // namespace keel::assembly
