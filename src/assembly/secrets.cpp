// The secrets of a host: credential-looking environment variables, keel.yaml's `secrets:`, the
// resolved API keys and MCP servers' credentials. See keel/assembly/secrets.hpp.
#include "keel/assembly/secrets.hpp"

#include <algorithm>
#include <cctype>

namespace keel::assembly {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// An HTTP header that carries a credential by its name.
bool is_credential_header(std::string_view name) {
  const std::string n = lower(name);
  if (n == "authorization" || n == "proxy-authorization" || n == "cookie") return true;
  for (const char* word : {"token", "key", "secret", "password", "auth"}) {
    if (n.find(word) != std::string::npos) return true;
  }
  return false;
}

void add(std::vector<Secret>& out, std::string name, const std::string& value) {
  if (value.empty()) return;
  out.push_back(Secret{std::move(name), value});
}

}  // namespace

bool is_credential_name(std::string_view name) {
  const std::string n = lower(name);
  for (const char* exact : {"openai_api_key", "anthropic_api_key", "hf_token", "keel_serve_token"}) {
    if (n == exact) return true;
  }
  for (const char* suffix : {"_api_key", "_token", "_secret", "_password"}) {
    if (ends_with(n, suffix)) return true;
  }
  return false;
}

std::vector<Secret> gather_secrets(const KeelConfig& config, const std::map<std::string, std::string>& env) {
  std::vector<Secret> out;
  for (const auto& [name, value] : env) {
    if (is_credential_name(name)) add(out, name, value);
  }
  for (const std::string& name : config.secrets) {
    if (auto it = env.find(name); it != env.end()) add(out, name, it->second);
  }
  add(out, "api_key", config.model.api_key);
  for (size_t i = 0; i < config.lanes.size(); ++i) {
    if (config.lanes[i].settings) add(out, "lanes[" + std::to_string(i) + "].api_key", config.lanes[i].settings->api_key);
  }
  for (const A2aAgentConfig& agent : config.a2a_agents) {
    if (agent.token_env.empty()) continue;
    if (auto it = env.find(agent.token_env); it != env.end()) add(out, agent.token_env, it->second);
  }
  for (const McpServerConfig& server : config.mcp_servers) {
    for (const auto& [header, value] : server.headers) {
      if (!is_credential_header(header)) continue;
      const std::string name = "mcpServers." + server.name + ".headers." + header;
      add(out, name, value);
      for (const char* scheme : {"Bearer ", "Basic ", "Token "}) {  // the credential without its scheme
        if (value.rfind(scheme, 0) == 0) add(out, name, value.substr(std::string_view(scheme).size()));
      }
    }
    for (const auto& [var, value] : server.env) {
      if (is_credential_name(var)) add(out, "mcpServers." + server.name + ".env." + var, value);
    }
  }
  return out;
}

std::shared_ptr<const SecretRedactor> make_redactor(const KeelConfig& config,
                                                    const std::map<std::string, std::string>& env) {
  auto redactor = std::make_shared<const SecretRedactor>(gather_secrets(config, env));
  if (redactor->empty()) return nullptr;
  return redactor;
}

}  // namespace keel::assembly
