// keel/assembly/secrets.hpp — which values keel treats as secrets, gathered once per host from the
// environment and the configuration, and the redactor every agent gets (AgentOptions::redactor).
//
// A secret is:
//   - the value of an environment variable whose name looks like a credential: *_API_KEY, *_TOKEN,
//     *_SECRET, *_PASSWORD (any case), and OPENAI_API_KEY, ANTHROPIC_API_KEY, HF_TOKEN,
//     KEEL_SERVE_TOKEN by name;
//   - the value of each variable keel.yaml's `secrets: [NAME, ...]` lists;
//   - the API keys the configuration resolved: the model's (api_key, api_key_env, --api-key) and
//     each lane's;
//   - the value of each a2a_agents entry's token_env;
//   - MCP servers' header values whose names look like credentials (Authorization, Cookie, names
//     with token, key, secret, password or auth; a "Bearer X" value also yields X) and env values
//     whose names look like credentials.
// Values shorter than SecretRedactor::kMinChars are ignored by the redactor.
//
// Thread-safety: free functions of their arguments.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "keel/config.hpp"
#include "keel/core/secret_redactor.hpp"

namespace keel::assembly {

// True when an environment variable called `name` holds a credential by its name.
bool is_credential_name(std::string_view name);

// Every secret of `config` and `env` (see above), named for the marker that replaces it.
std::vector<Secret> gather_secrets(const KeelConfig& config, const std::map<std::string, std::string>& env);

// A redactor of gather_secrets(config, env); nullptr when there is nothing to redact.
std::shared_ptr<const SecretRedactor> make_redactor(const KeelConfig& config,
                                                    const std::map<std::string, std::string>& env);

}  // namespace keel::assembly
