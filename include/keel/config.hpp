// keel/config.hpp — which model to use and the run settings, resolved from every place a user can
// put them.
//
// Precedence, highest first: command-line flags > environment variables > `keel.yaml` in the
// workspace > the user file `$XDG_CONFIG_HOME/keel/config.yaml` (default
// `$HOME/.config/keel/config.yaml`) > built-in defaults. The environment and the paths are inputs,
// so hosts pass the real ones (current_environment()) and tests pass their own.
//
//   keel::ConfigInputs in;
//   in.model = "ollama/qwen2.5:7b";            // from --model
//   in.env = keel::current_environment();
//   in.workspace = "/path/to/project";
//   in.home = in.env["HOME"];
//   KEEL_ASSIGN_OR_RETURN(keel::KeelConfig cfg, keel::resolve_config(in));
//
// Model names:
//   openai/NAME    base OPENAI_BASE_URL, else https://api.openai.com/v1
//   ollama/NAME    base OLLAMA_HOST ("host", "host:port" or a URL; default 127.0.0.1:11434) + "/v1"
//   lmstudio/NAME  http://127.0.0.1:1234/v1
//   llamacpp/NAME  http://127.0.0.1:8080/v1 (llama-server)
//   vllm/NAME      http://127.0.0.1:8000/v1
//   rules          the built-in deterministic rules model (also the default when nothing is set)
//   replay:FILE    replays a cassette recorded with --record FILE (keel/cassette.hpp)
//   anything else  sent as-is; needs --base-url, OPENAI_BASE_URL or a config `base_url`, or falls
//                  back to OpenAI's base when OPENAI_API_KEY is set.
// --base-url always wins over a provider's default; a config `base_url` does too. OPENAI_BASE_URL
// only applies to openai/ and unprefixed names (it describes OpenAI, not a local server).
//
// Environment variables read: KEEL_MODEL, KEEL_MAX_ROUNDS, KEEL_CONTEXT_WINDOW, OPENAI_BASE_URL, OPENAI_API_KEY,
// OLLAMA_HOST, XDG_CONFIG_HOME. An empty variable counts as unset.
//
// Config files (both use the same schema; unknown keys are an error, to catch typos):
//   model, base_url, api_key, api_key_env, max_rounds, stream, request_timeout_ms,
//   stream_idle_timeout_ms, connect_timeout_ms,
//   retry: {max_attempts, initial_delay_ms, max_delay_ms},
//   tools: {shell: {enabled, timeout_ms, sandbox, network, env, max_processes}},
//   intents: [{name, keywords, patterns, tools}], planner: {enabled, timeout_ms},
//   context: {window, threshold_percent, recency_rounds, summary_cooldown_rounds},
//   approvals: {default_mode, client_may_loosen, tools: {NAME or "*": {mode, allow_patterns, deny_patterns}}}
//     (camelCase defaultMode, clientMayLoosen, allowPatterns, denyPatterns are accepted too),
//   secrets: [NAME, ...] (environment variables whose values are redacted from tool output),
//   skills: {enabled, disclosure_percent} (knowledge skills, keel/knowledge_skills.hpp),
//   lanes: [{model, base_url, timeout_floor_ms, rate_limit_per_minute}] (keel/lanes.hpp),
//   a2a_agents: [{name, url, token_env, timeout_ms}] (remote agents as tools, keel/a2a_tools.hpp;
//     token_env is honoured in the user file only),
//   autopilot: {enabled, interval_ms, concurrency, max_failures, backoff_ms, max_backoff_ms, budget,
//     sources, triggers} (keel/autopilot_config.hpp; the workspace file's section replaces the user's)
// A missing file is fine; an unreadable or malformed one is an error naming the file and key.
// The shell sandbox (tools.shell.sandbox/network/env/max_processes): a workspace keel.yaml may only
// tighten it (a stricter mode, a lower cap); turning it off or weaker, the network, passing names
// and removing the cap are honoured in the user file only, so a repository cannot loosen it.
// --sandbox MODE wins over both files.
// Approvals of both files are merged: the workspace file's modes win, patterns of both apply.
//
// Thread-safety: plain values and free functions; resolve_config() reads the files it is pointed
// at and nothing global, so concurrent calls are safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "keel/a2a_config.hpp"
#include "keel/autopilot_config.hpp"
#include "keel/base/sandbox_policy.hpp"
#include "keel/core/preflight.hpp"  // IntentRule: the config adds rules to the built-in ones
#include "keel/mcp_config.hpp"
#include "keel/result.hpp"

namespace keel {

// How a failed model request is retried (exponential backoff with a cap).
struct RetrySettings {
  int max_attempts = 4;            // total attempts including the first; 1 disables retries
  int64_t initial_delay_ms = 500;  // wait before the first retry, milliseconds
  int64_t max_delay_ms = 20000;    // no single wait is longer than this, milliseconds
};

// The model a run talks to.
struct ModelSettings {
  // kReplay: "replay:FILE" (keel/cassette.hpp); kAnthropic: "anthropic/NAME" (keel/anthropic_client.hpp);
  // kLocal: "gguf:/path/model.gguf" or "local/NAME" (a file in the models folder), run in-process
  // with llama.cpp (keel/local_model.hpp).
  enum class Kind { kRules, kOpenAiCompatible, kAnthropic, kReplay, kLocal };
  Kind kind = Kind::kRules;
  std::string name;      // as given, e.g. "ollama/qwen2.5:7b"
  std::string model;     // sent to the server, e.g. "qwen2.5:7b"; "rules" for the rules model
  std::string base_url;  // e.g. "http://127.0.0.1:11434/v1" (no trailing slash); empty for rules
  std::string api_key;   // may be empty (local servers need none)
  std::string source;    // where the choice came from: "--model", "KEEL_MODEL", a file path, "default"
};

// How calls of one tool are approved before they run.
enum class ApprovalMode {
  kAuto,     // run without asking
  kConfirm,  // ask the approver first (a person on a terminal; `--yes` approves)
  kDeny,     // never run; the model is told which rule refused the call
};

// "auto", "confirm", "deny".
std::string_view approval_mode_name(ApprovalMode mode);
// The mode named `name` (as approval_mode_name() spells it); nullopt for anything else.
std::optional<ApprovalMode> parse_approval_mode(std::string_view name);

// The approval settings of one tool (or of "*": every tool).
struct ToolApprovalPolicy {
  // Unset: ApprovalPolicy::default_mode, else the tool's risk decides.
  std::optional<ApprovalMode> mode = std::nullopt;
  // RE2 regular expressions, partial match, over the call's canonical JSON arguments (keys sorted,
  // no spaces) or, for shell, over its command line (the "command" argument). Anchor them
  // (^...$) to match a whole command: "^git status" also matches "git status; rm -rf ~".
  std::vector<std::string> allow_patterns = {};  // a match runs the call without asking
  std::vector<std::string> deny_patterns = {};   // a match refuses the call; checked before everything else
  std::string source = {};  // where it was configured, for messages, e.g. "/ws/keel.yaml"
};

// Which calls run, which are asked about, which are refused. For each call, in order:
//   1. a deny pattern (the tool's or "*"'s) matches  → refused
//   2. an allow pattern matches                      → runs
//   3. a remembered decision of the workspace matches (`keel approvals list`; deny wins) → that
//   4. the mode: override_mode, else the tool's mode, else default_mode, else by risk (low and
//      medium: auto, high: confirm)
//   5. floor_mode (a client's request) makes the verdict of 1-4 stricter, never looser
// An approver (`--yes`, a person) only answers calls that end in confirm: `--yes` never overrides
// a refusal.
struct ApprovalPolicy {
  std::optional<ApprovalMode> default_mode = std::nullopt;  // tools without their own mode; unset: by risk
  std::string default_source = {};                          // where default_mode was set
  // By tool name; the "*" entry's patterns apply to every tool (its mode is default_mode).
  std::map<std::string, ToolApprovalPolicy> tools = {};
  // Replaces every mode (tools', default, risk) for this run, e.g. from --approve-mode. Patterns and
  // remembered decisions still decide first.
  std::optional<ApprovalMode> override_mode = std::nullopt;
  std::string override_source = {};  // where override_mode came from, for messages, e.g. "--approve-mode"
  // A mode a client asked for (keel serve's `approval_mode`): a floor on strictness applied after
  // everything above decided. confirm turns a call that would run into one that asks; deny refuses
  // every call; auto changes nothing. A refusal stays a refusal.
  std::optional<ApprovalMode> floor_mode = std::nullopt;
  std::string floor_source = {};  // where floor_mode came from, for messages
  // keel.yaml `approvals.client_may_loosen` (user config only): true lets a client's requested mode
  // replace the operator's modes (as override_mode) instead of only tightening them. Unset: false.
  std::optional<bool> client_may_loosen = std::nullopt;
  std::string client_may_loosen_source = {};  // the file that set it
};

// Applies a mode a client of keel serve asked for (`approval_mode` in a message body) to the
// operator's `policy`: unless the policy sets client_may_loosen, it only tightens (floor_mode);
// with it, it replaces every mode (override_mode). `source` names the request in messages.
// InvalidArgument for a word other than auto, confirm or deny.
Status apply_requested_approval_mode(ApprovalPolicy& policy, std::string_view mode, const std::string& source);

// Ok when `pattern` is usable as an approval pattern (RE2 syntax; empty matches every call);
// InvalidArgument saying what is wrong with it otherwise.
Status check_approval_pattern(std::string_view pattern);

// Knowledge skills (keel/knowledge_skills.hpp) in agent runs.
struct SkillsSettings {
  bool enabled = true;         // false: no skills are loaded, disclosed or offered through load_skill
  // Share of the context window, in percent (1..50), that the system prompt's list of skill names
  // and descriptions may take (SkillDisclosureOptions::share_percent; at least 256 tokens).
  int disclosure_percent = 2;
};

// Everything resolve_config() decides.
// A folder the fs tools may use besides the workspace, addressed as "NAME:path".
struct FsRootConfig {
  std::string name;
  std::string path;        // relative paths are taken from the file's workspace
  bool read_only = false;  // nothing in it can be changed
};

// A named agent setup from `profiles:` in keel.yaml. keel serve offers each one (the API's
// `profile`, the OpenAI-compatible endpoint's `model`); unset fields take the top level's values.
struct AgentProfileConfig {
  std::string name;                          // [A-Za-z0-9._-]+, at most 64 characters
  std::string description;
  std::optional<std::string> model;          // as --model takes it
  std::optional<std::string> base_url;
  std::optional<int> max_rounds;             // 1..1000
  std::optional<std::string> approve_mode;   // auto | confirm | deny, as --approve-mode
  std::vector<std::string> tools;            // the tools it may call; empty: every tool
};

// `local:` in keel.yaml: how gguf: and local/ models run in-process (keel/local_model.hpp).
struct LocalModelConfig {
  int context_size = 0;          // tokens; 0: the model's trained context, at most 8192
  int gpu_layers = -1;           // layers offloaded to a GPU; -1: llama.cpp's default
  int threads = 0;               // 0: the machine's cores
  int max_tokens = 1024;         // tokens one reply may generate
  std::string tool_choice = "auto";  // "auto" or "required" (every reply with tools is a call)
  int max_calls_per_reply = 8;   // calls the grammar lets one reply hold (1..16)
  int max_string_chars = 0;      // > 0: the grammar cuts unbounded strings there (0: no limit)
  bool grammar = true;           // constrain tool calls with a grammar from the tools' schemas
  std::string chat_template;     // family when the file has none: chatml, llama3, mistral, gemma
  std::optional<double> temperature = std::nullopt;
  std::optional<int64_t> seed = std::nullopt;
  // A GGUF whose tokenizer counts tokens for the context policy (a vocab-only file works), e.g. for
  // a remote model of a known family. Empty: a local model's own tokenizer, else the estimate.
  std::string tokenizer;
  // Save each session's KV cache in $KEEL_HOME/kv/SESSION.kv when a run ends and restore it when
  // the session continues, so a resumed session does not evaluate its history again. Files can be
  // large (the whole cache), hence off by default.
  bool kv_cache = false;
};

// One entry of `lanes:` in keel.yaml (keel/lanes.hpp): a backend of the inference cascade.
struct LaneConfig {
  std::string model;                     // as --model takes it, e.g. "ollama/qwen2.5:7b", "rules"
  std::optional<std::string> base_url;   // this lane's server; unset: the model's provider default
  int64_t timeout_floor_ms = 0;          // a call's timeout is at least this, milliseconds; 0: none
  double rate_limit_per_minute = 0;      // calls per minute before the lane is skipped; 0: unlimited
  std::string source;                    // the file that set it, for messages
  // Filled by resolve_config(): the resolved backend, or why it cannot be (the lane's load failure).
  std::optional<ModelSettings> settings = std::nullopt;
  std::string load_error = {};
};

// What a model's tokens cost (keel.yaml `prices: {MODEL: {input, output}}`), per million tokens.
struct ModelPrice {
  double input_per_mtok = 0;
  double output_per_mtok = 0;
};

struct KeelConfig {
  ModelSettings model;
  int max_rounds = 20;                     // model calls per run, 1..1000
  bool stream = true;                      // ask the backend for streamed replies
  int64_t request_timeout_ms = 300000;     // whole model request, milliseconds
  int64_t stream_idle_timeout_ms = 60000;  // longest silence inside a stream, milliseconds
  int64_t connect_timeout_ms = 10000;      // TCP/TLS connect, milliseconds
  RetrySettings retry;
  bool shell_enabled = true;              // register the shell tool
  int shell_timeout_ms = 60000;           // shell per-call timeout, milliseconds
  SandboxMode shell_sandbox = SandboxMode::kWorkspaceWrite;  // tools.shell.sandbox, or --sandbox
  bool shell_network = false;             // tools.shell.network: commands reach the network
  std::vector<std::string> shell_env;     // tools.shell.env: keel's variables passed to commands
  int shell_max_processes = 256;          // tools.shell.max_processes: 0 is no cap
  bool web_enabled = true;                // register the web tools (http_fetch, web_fetch, ...)
  // Addresses the web tools' SSRF guard lets through: IP literals, CIDRs or host names (e.g.
  // "127.0.0.1", "10.1.0.0/16", "wiki.internal"); empty: no private address is reachable.
  std::vector<std::string> web_allowed;
  int web_timeout_ms = 30000;             // web tools' per-request timeout, milliseconds
  // When the MCP servers' tool definitions come to more than this many tokens (estimated), their
  // tools are deferred: offered only once tool_search finds them (keel/core/deferred_tools.hpp).
  // 0: always deferred. keel.yaml tools.mcp.defer_above_tokens.
  int64_t mcp_defer_above_tokens = 10000;
  // Caps on one run's model calls (keel.yaml `budget`, --max-tokens, --max-cost); 0: none. A cost
  // cap needs the model's entry in `prices`.
  int64_t max_run_tokens = 0;
  double max_run_cost = 0;
  std::map<std::string, ModelPrice> prices = {};  // by model name, as --model names it
  std::vector<FsRootConfig> fs_roots;     // folders the fs tools may use besides the workspace
  std::vector<IntentRule> intents;        // extra preflight rules: user file's, then workspace's
  bool planner_enabled = false;           // run the preflight planner
  int64_t planner_timeout_ms = 2000;      // planner budget, milliseconds
  int64_t context_window = 32768;         // the model's context window, tokens (0: unknown, no compaction)
  int context_threshold_percent = 80;     // compaction starts above this share of the window
  int context_recency_rounds = 2;         // last tool rounds kept verbatim
  int context_summary_cooldown_rounds = 3;  // rounds between two summaries
  ApprovalPolicy approvals = {};          // approval policy: both files merged, --approve-mode applied
  // MCP servers: the user file's `mcpServers`, then the workspace keel.yaml's, then the workspace's
  // .mcp.json (a later definition of a name replaces an earlier one). Workspace ones are marked
  // from_workspace: keel starts them only once the user trusted them (`keel mcp trust NAME`).
  std::vector<McpServerConfig> mcp_servers = {};
  // Folders searched for skills (keel/knowledge_skills.hpp, keel/executable_skill.hpp), highest
  // precedence first: <workspace>/.keel/skills, <workspace>/.agents/skills, then the user folder
  // $XDG_CONFIG_HOME/keel/skills (default ~/.config/keel/skills). A skill in an earlier folder
  // hides one of the same name in a later one. Folders that do not exist are listed too.
  std::vector<std::string> skill_dirs = {};
  SkillsSettings skills = {};             // `skills:` of the files (the workspace file's values win)
  // `profiles:` of the files, in file order; a workspace profile replaces a user one of its name.
  std::vector<AgentProfileConfig> profiles = {};
  // `lanes:` of the workspace file, else the user file's; used instead of `model` unless --model is given.
  std::vector<LaneConfig> lanes = {};
  LocalModelConfig local = {};            // `local:` (the workspace file's keys win)
  // `secrets:` of both files: names of environment variables whose values are redacted from tool
  // output, besides those keel recognises itself (keel/assembly/secrets.hpp).
  std::vector<std::string> secrets = {};
  // `a2a_agents:` of both files: the user file's, then the workspace file's (which replaces a user
  // agent of its name; token_env is refused there). Each becomes the tool a2a_NAME.
  std::vector<A2aAgentConfig> a2a_agents = {};
  // `autopilot:` of the workspace file, else the user file's (keel/autopilot_config.hpp).
  AutopilotConfig autopilot = {};
  std::vector<std::string> loaded_files;  // config files actually read: user file, then workspace
};

// What the host knows: parsed flags, the environment and two directories.
struct ConfigInputs {
  std::optional<std::string> model;        // --model
  std::optional<std::string> base_url;     // --base-url
  std::optional<std::string> api_key;      // --api-key
  std::optional<int> max_rounds;           // --max-rounds
  std::optional<int64_t> max_tokens = std::nullopt;  // --max-tokens: the run's token cap
  std::optional<double> max_cost = std::nullopt;     // --max-cost: the run's cost cap
  std::optional<bool> stream;              // --no-stream sets false
  std::optional<std::string> approve_mode = std::nullopt;  // --approve-mode: "auto", "confirm" or "deny"
  std::optional<std::string> sandbox = std::nullopt;       // --sandbox: "workspace-write", "read-only" or "off"
  std::map<std::string, std::string> env;  // environment variables (current_environment() in hosts)
  std::string workspace;                   // workspace dir; `keel.yaml` is looked up here (empty: no workspace file)
  std::string home;                        // HOME, for ~/.config/keel/config.yaml unless env has XDG_CONFIG_HOME
};

// Resolves the configuration. Errors (kInvalidArgument) name the flag, variable or file and key
// at fault and say what is accepted, e.g. "/ws/keel.yaml: max_rounds must be an integer >= 1".
Result<KeelConfig> resolve_config(const ConfigInputs& in);

// The price of `config`'s model (`prices` by the name as given, then as sent); nullptr: none.
const ModelPrice* model_price(const KeelConfig& config);

// The process environment as a map (reads ::environ), for hosts to put in ConfigInputs::env.
std::map<std::string, std::string> current_environment();

}  // namespace keel
