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
//   retry: {max_attempts, initial_delay_ms, max_delay_ms}, tools: {shell: {enabled, timeout_ms}},
//   intents: [{name, keywords, patterns, tools}], planner: {enabled, timeout_ms},
//   context: {window, threshold_percent, recency_rounds, summary_cooldown_rounds}
// A missing file is fine; an unreadable or malformed one is an error naming the file and key.
//
// Thread-safety: plain values and free functions; resolve_config() reads the files it is pointed
// at and nothing global, so concurrent calls are safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "keel/core/preflight.hpp"  // IntentRule: the config adds rules to the built-in ones
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
  enum class Kind { kRules, kOpenAiCompatible };
  Kind kind = Kind::kRules;
  std::string name;      // as given, e.g. "ollama/qwen2.5:7b"
  std::string model;     // sent to the server, e.g. "qwen2.5:7b"; "rules" for the rules model
  std::string base_url;  // e.g. "http://127.0.0.1:11434/v1" (no trailing slash); empty for rules
  std::string api_key;   // may be empty (local servers need none)
  std::string source;    // where the choice came from: "--model", "KEEL_MODEL", a file path, "default"
};

// Everything resolve_config() decides.
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
  std::vector<IntentRule> intents;        // extra preflight rules: user file's, then workspace's
  bool planner_enabled = false;           // run the preflight planner
  int64_t planner_timeout_ms = 2000;      // planner budget, milliseconds
  int64_t context_window = 32768;         // the model's context window, tokens (0: unknown, no compaction)
  int context_threshold_percent = 80;     // compaction starts above this share of the window
  int context_recency_rounds = 2;         // last tool rounds kept verbatim
  int context_summary_cooldown_rounds = 3;  // rounds between two summaries
  std::vector<std::string> loaded_files;  // config files actually read: user file, then workspace
};

// What the host knows: parsed flags, the environment and two directories.
struct ConfigInputs {
  std::optional<std::string> model;        // --model
  std::optional<std::string> base_url;     // --base-url
  std::optional<std::string> api_key;      // --api-key
  std::optional<int> max_rounds;           // --max-rounds
  std::optional<bool> stream;              // --no-stream sets false
  std::map<std::string, std::string> env;  // environment variables (current_environment() in hosts)
  std::string workspace;                   // workspace dir; `keel.yaml` is looked up here (empty: no workspace file)
  std::string home;                        // HOME, for ~/.config/keel/config.yaml unless env has XDG_CONFIG_HOME
};

// Resolves the configuration. Errors (kInvalidArgument) name the flag, variable or file and key
// at fault and say what is accepted, e.g. "/ws/keel.yaml: max_rounds must be an integer >= 1".
Result<KeelConfig> resolve_config(const ConfigInputs& in);

// The process environment as a map (reads ::environ), for hosts to put in ConfigInputs::env.
std::map<std::string, std::string> current_environment();

}  // namespace keel
