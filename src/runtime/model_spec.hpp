// Private to the runtime: turns a model name ("ollama/qwen2.5:7b", "rules", "gpt-4o") plus the
// already-layered base URL and key settings into ModelSettings — which backend, which server, which
// key.
//
// Thread-safety: free functions over values.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "keel/config.hpp"
#include "keel/result.hpp"

namespace keel::detail {

// The model-related settings after layering; each optional is the highest-precedence value found.
struct ModelInputs {
  std::string name;                               // model name as given; non-empty
  std::string source;                             // where the name came from ("--model", a path, ...)
  std::optional<std::string> flag_base_url;       // --base-url
  std::optional<std::string> flag_api_key;        // --api-key
  std::optional<std::string> config_base_url;     // base_url from the highest config file setting it
  std::string config_base_url_source;             // that file's path
  std::optional<std::string> config_api_key;      // api_key from the highest file setting a key
  std::optional<std::string> config_api_key_env;  // or api_key_env from that file
  std::string config_api_key_source;              // that file's path
  // True when config_base_url came from the workspace's keel.yaml. A repository is not trusted
  // with the user's keys: environment keys are then not sent to that URL.
  bool base_url_from_workspace = false;
};

// Resolves the backend, server and key. Errors (kInvalidArgument): an unknown model with no base
// URL, an empty name after a provider prefix, a base URL that is not http(s), an api_key_env that
// names an unset variable.
Result<ModelSettings> resolve_model(const ModelInputs& in, const std::map<std::string, std::string>& env);

// The value of environment variable `name` in `env`; "" when unset (keel treats empty as unset).
std::string env_value(const std::map<std::string, std::string>& env, const std::string& name);

// Ollama's OpenAI-compatible base from OLLAMA_HOST: "host", "host:port", ":port" or a URL; empty
// means http://127.0.0.1:11434. A bare host gets port 11434; 0.0.0.0 (a bind-all address, not a
// destination) becomes 127.0.0.1. Returns e.g. "http://127.0.0.1:11434/v1".
std::string ollama_base_url(std::string_view ollama_host);

}  // namespace keel::detail
