// Private to the runtime: one keel config file (keel.yaml or the user's config.yaml) parsed into
// optional fields, so resolve_config() can layer files under the environment and flags.
//
// Thread-safety: plain value and a free function that reads only the file it is given.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "keel/config.hpp"
#include "keel/result.hpp"

namespace keel::detail {

// The settings one file sets; an unset optional means "the file does not say".
struct ConfigLayer {
  std::string path;  // the file as named in messages, e.g. "/ws/keel.yaml"
  std::optional<std::string> model;
  std::optional<std::string> base_url;
  std::optional<std::string> api_key;
  std::optional<std::string> api_key_env;  // name of an environment variable holding the key
  std::optional<int> max_rounds;
  std::optional<bool> stream;
  std::optional<int64_t> request_timeout_ms;
  std::optional<int64_t> stream_idle_timeout_ms;
  std::optional<int64_t> connect_timeout_ms;
  std::optional<int> retry_max_attempts;
  std::optional<int64_t> retry_initial_delay_ms;
  std::optional<int64_t> retry_max_delay_ms;
  std::optional<bool> shell_enabled;
  std::optional<int> shell_timeout_ms;
  std::optional<std::string> shell_sandbox;  // tools.shell.sandbox as written (checked when applied)
  std::optional<bool> shell_network;
  std::optional<std::vector<std::string>> shell_env;
  std::optional<int> shell_max_processes;
  std::optional<bool> web_enabled;
  std::vector<std::string> web_allowed;  // added to the allow-lists of earlier layers
  std::optional<int> web_timeout_ms;
  std::optional<int64_t> mcp_defer_above_tokens;
  std::optional<int64_t> budget_max_tokens;
  std::optional<double> budget_max_cost;
  std::map<std::string, ModelPrice> prices;  // a later file's entry replaces an earlier one's
  std::vector<FsRootConfig> fs_roots;      // added to the roots of earlier layers
  std::vector<IntentRule> intents;
  std::optional<bool> planner_enabled;
  std::optional<int64_t> planner_timeout_ms;
  std::optional<int64_t> context_window;
  std::optional<int> context_threshold_percent;
  std::optional<int> context_recency_rounds;
  std::optional<int> context_summary_cooldown_rounds;
  ApprovalPolicy approvals = {};  // the file's approvals section; sources are set to `path`
  std::optional<bool> skills_enabled;            // skills.enabled
  std::optional<int> skills_disclosure_percent;  // skills.disclosure_percent
  std::vector<AgentProfileConfig> profiles;      // profiles
  std::optional<std::vector<LaneConfig>> lanes;  // lanes (a list replaces an earlier file's)
  std::optional<int> local_context_size, local_gpu_layers, local_threads, local_max_tokens, local_max_calls,
      local_max_string_chars;  // local.*
  std::optional<std::string> local_tool_choice, local_chat_template, local_tokenizer;
  std::optional<bool> local_grammar, local_kv_cache;
  std::optional<double> local_temperature;
  std::optional<int64_t> local_seed;
  std::vector<std::string> secrets;  // `secrets:` names, added to earlier layers'
  std::vector<A2aAgentConfig> a2a_agents;  // `a2a_agents:`; an entry replaces an earlier file's of its name
  std::optional<AutopilotConfig> autopilot;  // `autopilot:`; a later file's section replaces an earlier one's
  nlohmann::json mcp_servers = nullptr;  // the file's `mcpServers` mapping, as JSON (read with the environment later)
  // `store:` (a URL or path, or {url, pool_size, reconnect_wait_ms}): honoured in the user file only.
  std::optional<std::string> store_url;
  std::optional<int> store_pool_size;
  std::optional<int> store_reconnect_wait_ms;
};

// Reads `profiles:` (a mapping of name to settings) of the file `path` into `out`.
Status parse_profiles(const YAML::Node& node, const std::string& path, std::vector<AgentProfileConfig>& out);

// Reads `lanes:` (a list of {model, base_url, timeout_floor_ms, rate_limit_per_minute}) of `path`.
Status parse_lanes(const YAML::Node& node, const std::string& path, std::vector<LaneConfig>& out);

// Reads `autopilot:` of the file `path` (keel/autopilot_config.hpp); a broken source entry keeps
// its error in the entry, anything else broken is the error.
Status parse_autopilot(const YAML::Node& node, const std::string& path, AutopilotConfig& out);

// Reads `a2a_agents:` (a list of {name, url, token_env?, timeout_ms?}) of the file `path` into `out`;
// each entry is checked with check_a2a_agent_config() and names are unique within the file.
Status parse_a2a_agents(const YAML::Node& node, const std::string& path, std::vector<A2aAgentConfig>& out);

// Adds the agents `layer` declares to `config` (replacing earlier ones of their names). A
// workspace file (`from_workspace`) may not set token_env: an InvalidArgument points at the user
// config `user_config`.
Status apply_a2a_layer(const ConfigLayer& layer, bool from_workspace, const std::string& user_config,
                       KeelConfig& config);

// $XDG_CONFIG_HOME/keel/config.yaml, else $HOME/.config/keel/config.yaml; empty when neither is
// known. A relative XDG_CONFIG_HOME is ignored, as the XDG spec asks.
std::string user_config_path(const ConfigInputs& in);

// Reads and validates one config file. nullopt when the file does not exist; kInvalidArgument
// naming the file (and key) when it cannot be read, is not valid YAML, has an unknown key, a value
// of the wrong type or out of range, or an intent or approval pattern that does not compile.
Result<std::optional<ConfigLayer>> load_config_file(const std::string& path);

// Parses YAML text as if it were the file `path` (the part of load_config_file after reading).
Result<ConfigLayer> parse_config_text(const std::string& text, const std::string& path);

// Copies the shell sandbox settings `layer` sets onto `config` (tools.shell.sandbox, network, env,
// max_processes). A workspace file (`from_workspace`) may only tighten what `config` holds; what
// would loosen it is an InvalidArgument pointing at the user config `user_config`.
Status apply_shell_layer(const ConfigLayer& layer, bool from_workspace, const std::string& user_config,
                         KeelConfig& config);

// Applies --sandbox MODE (`flag`, when set) over the files' choice.
Status apply_sandbox_flag(const std::optional<std::string>& flag, KeelConfig& config);

// Copies the skills settings `layer` sets onto `config` (resolve_config applies each file in turn).
void apply_skills_layer(const ConfigLayer& layer, KeelConfig& config);

}  // namespace keel::detail
