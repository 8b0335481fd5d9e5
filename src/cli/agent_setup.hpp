// What `keel run`, `keel resume` and `keel chat` share: configuration, backend, tools, the
// database, output plugins and the approver, assembled into one ready Agent.
#pragma once

#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "cli/json_events.hpp"
#include "keel/agent.hpp"
#include "keel/config.hpp"
#include "keel/mcp.hpp"
#include "keel/skill_runner.hpp"
#include "keel/store/store.hpp"

namespace keel::cli {

// The flags the agent commands have in common.
struct AgentFlags {
  std::optional<std::string> model, base_url, api_key, workspace;
  std::optional<int> max_rounds;
  bool yes = false;        // approve every call that would be asked about
  std::optional<std::string> approve_mode;  // every tool's approval mode for this run (auto|confirm|deny)
  bool json = false;       // JSON Lines events on stdout
  bool no_stream = false;  // whole replies
  bool ephemeral = false;  // no database
  bool quiet = false;      // no output on stdout/stderr and nobody asked (keel mcp serve's run_agent)
  std::optional<std::string> record;  // --record FILE: every model exchange goes to this cassette
};

// Owns everything an agent command needs; the Agent borrows the rest, so they live together.
// Thread-safety: one command at a time.
class CliAgent {
 public:
  // Errors are configuration or database problems (exit 2), already formatted for the user.
  static Result<std::unique_ptr<CliAgent>> create(const AgentFlags& flags);

  Agent& agent() { return *agent_; }
  // The next turn starts by compacting the context (chat's /compact).
  void request_compaction() { agent_->request_compaction(); }
  Store* store() { return store_.get(); }
  const KeelConfig& config() const { return config_; }
  const std::string& workspace() const { return workspace_; }
  // Writes a run_failed line (--json) and "keel: message" on stderr; returns `exit_code`.
  int fail(const std::string& kind, const std::string& message, int exit_code) const;

 private:
  CliAgent() = default;
  KeelConfig config_;
  std::string workspace_;
  std::unique_ptr<LlmClient> llm_;
  std::unique_ptr<McpHub> mcp_;  // before tools_: the MCP tools call through it
  std::unique_ptr<ToolRegistry> tools_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<SkillRunner> skills_;  // run_skill's runner; it calls actions through tools_
  std::unique_ptr<JsonEventsPlugin> json_out_;
  std::unique_ptr<Agent> agent_;
};

// An editable prompt: <workspace>/.keel/prompts/NAME, else the user's
// $XDG_CONFIG_HOME/keel/prompts/NAME (~/.config/...); empty (keel's default) when neither exists.
std::string load_prompt(const std::string& name, const std::string& workspace,
                        const std::map<std::string, std::string>& env);

// The backend `config` names: the rules model, a cassette replay (replay:FILE), an OpenAI-compatible
// client, or the cascade of keel.yaml's lanes (see uses_lanes). InvalidArgument for unusable client
// options or an unreadable cassette.
Result<std::unique_ptr<LlmClient>> make_backend(const KeelConfig& config);
// True when the backend is keel.yaml's lanes: lanes are set and --model was not given.
bool uses_lanes(const KeelConfig& config);

// The workspace a stored session (s_…) or run (r_…) worked in, so that continuing or resuming
// it without --workspace uses the same folder; nullopt when unknown or when it no longer exists.
std::optional<std::string> stored_workspace(const std::string& id);

// A usage error before any agent exists: JSON line when asked for, message on stderr, exit 2.
int usage_failure(bool json, const std::string& message);

}  // namespace keel::cli
