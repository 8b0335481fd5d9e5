// Reading MCP server definitions: `.mcp.json` (shared with other agent tools, so keys keel does not
// know are ignored there) and keel.yaml's `mcpServers` (keel's own file: unknown keys are typos).
#include <optional>
#include <set>
#include <string>

#include "keel/mcp.hpp"

namespace keel {

std::string_view mcp_transport_name(McpTransportKind kind) {
  switch (kind) {
    case McpTransportKind::kStdio: return "stdio";
    case McpTransportKind::kHttp: return "http";
    case McpTransportKind::kSse: return "sse";
  }
  return "stdio";
}

std::string mcp_tool_name(std::string_view server, std::string_view tool) {
  std::string out;
  out.reserve(server.size() + tool.size() + 2);
  auto put = [&out](std::string_view part) {
    for (char c : part) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                c == '.';
      out.push_back(ok ? c : '_');
    }
  };
  put(server);
  out.append("__");
  put(tool);
  if (tool.empty()) return {};
  if (out.size() > 64) out.resize(64);
  return out;
}

namespace {

// Keys keel reads from a server entry.
const std::set<std::string>& known_keys() {
  static const std::set<std::string> keys = {
      "type", "transport", "command", "args", "env", "cwd", "url", "headers", "allow", "deny",
      "startup_timeout_ms", "startupTimeoutMs", "call_timeout_ms", "callTimeoutMs", "enabled", "disabled",
      "accept_tool_changes", "acceptToolChanges", "oauth", "protocol_version", "protocolVersion"};
  return keys;
}

// ${VAR} and ${VAR:-default}; an unset variable without a default is an error naming it.
Result<std::string> expand(const std::string& text, const std::map<std::string, std::string>& env,
                           const std::string& where) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '$' || i + 1 >= text.size() || text[i + 1] != '{') {
      out.push_back(text[i++]);
      continue;
    }
    size_t close = text.find('}', i + 2);
    if (close == std::string::npos) {
      return Status::InvalidArgument(where + ": unclosed ${ in \"" + text + "\"");
    }
    std::string inner = text.substr(i + 2, close - i - 2);
    std::string name = inner;
    std::optional<std::string> fallback;
    if (size_t dash = inner.find(":-"); dash != std::string::npos) {
      name = inner.substr(0, dash);
      fallback = inner.substr(dash + 2);
    }
    auto it = env.find(name);
    if (it != env.end() && !it->second.empty()) {
      out += it->second;
    } else if (fallback) {
      out += *fallback;
    } else {
      return Status::InvalidArgument(where + ": environment variable " + name +
                                     " is not set (write ${" + name + ":-default} for a default)");
    }
    i = close + 1;
  }
  return out;
}

// A scalar as text: strings as they are, numbers and booleans as written (YAML has no types).
std::optional<std::string> scalar_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return v.dump();
  return std::nullopt;
}

class EntryReader {
 public:
  EntryReader(const nlohmann::json& entry, std::string where, const std::map<std::string, std::string>& env)
      : entry_(entry), where_(std::move(where)), env_(env) {}

  Status string(const char* key, std::string& out) const {
    auto it = entry_.find(key);
    if (it == entry_.end() || it->is_null()) return Status::Ok();
    std::optional<std::string> text = scalar_text(*it);
    if (!text) return Status::InvalidArgument(where_ + "." + key + " must be a string");
    KEEL_ASSIGN_OR_RETURN(out, expand(*text, env_, where_ + "." + key));
    return Status::Ok();
  }
  Status strings(const char* key, std::vector<std::string>& out) const {
    auto it = entry_.find(key);
    if (it == entry_.end() || it->is_null()) return Status::Ok();
    if (!it->is_array()) return Status::InvalidArgument(where_ + "." + key + " must be a list of strings");
    for (const auto& v : *it) {
      std::optional<std::string> text = scalar_text(v);
      if (!text) return Status::InvalidArgument(where_ + "." + key + " must be a list of strings");
      KEEL_ASSIGN_OR_RETURN(std::string expanded, expand(*text, env_, where_ + "." + key));
      out.push_back(std::move(expanded));
    }
    return Status::Ok();
  }
  Status map(const char* key, std::map<std::string, std::string>& out) const {
    auto it = entry_.find(key);
    if (it == entry_.end() || it->is_null()) return Status::Ok();
    if (!it->is_object()) return Status::InvalidArgument(where_ + "." + key + " must be a mapping of names to strings");
    for (auto kv = it->begin(); kv != it->end(); ++kv) {
      std::optional<std::string> text = scalar_text(kv.value());
      if (!text) return Status::InvalidArgument(where_ + "." + key + "." + kv.key() + " must be a string");
      KEEL_ASSIGN_OR_RETURN(out[kv.key()], expand(*text, env_, where_ + "." + key + "." + kv.key()));
    }
    return Status::Ok();
  }
  Status millis(std::initializer_list<const char*> keys, int64_t& out) const {
    for (const char* key : keys) {
      auto it = entry_.find(key);
      if (it == entry_.end() || it->is_null()) continue;
      int64_t value = 0;
      if (it->is_number_integer()) {
        value = it->get<int64_t>();
      } else if (it->is_string()) {
        const std::string& s = it->get_ref<const std::string&>();
        size_t used = 0;
        try {
          value = std::stoll(s, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != s.size()) value = -1;
      } else {
        value = -1;
      }
      if (value < 1 || value > 86400000) {
        return Status::InvalidArgument(where_ + "." + key + " must be a number of milliseconds from 1 to 86400000");
      }
      out = value;
    }
    return Status::Ok();
  }
  Status boolean(const char* key, bool& out) const {
    auto it = entry_.find(key);
    if (it == entry_.end() || it->is_null()) return Status::Ok();
    if (it->is_boolean()) {
      out = it->get<bool>();
    } else if (it->is_string() && (*it == "true" || *it == "false")) {
      out = *it == "true";
    } else {
      return Status::InvalidArgument(where_ + "." + key + " must be true or false");
    }
    return Status::Ok();
  }

 private:
  const nlohmann::json& entry_;
  std::string where_;
  const std::map<std::string, std::string>& env_;
};

bool valid_server_name(const std::string& name) {
  if (name.empty() || name.size() > 32) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// `oauth: {clientId, clientSecret, clientMetadataUrl, scopes, redirectUri}` (snake_case also
// accepted); ${VAR} expands, so a secret can stay in the environment.
Status parse_oauth(const nlohmann::json& entry, const std::string& where, const std::map<std::string, std::string>& env,
                   McpOAuthConfig& out) {
  auto it = entry.find("oauth");
  if (it == entry.end() || it->is_null()) return Status::Ok();
  const std::string at = where + ".oauth";
  if (!it->is_object()) return Status::InvalidArgument(at + " must be a mapping (clientId, clientSecret, scopes, ...)");
  static const std::map<std::string, std::string> kAliases = {
      {"client_id", "clientId"},       {"client_secret", "clientSecret"}, {"client_metadata_url", "clientMetadataUrl"},
      {"redirect_uri", "redirectUri"}, {"scopes", "scopes"},           {"grant", "grant"},
      {"private_key", "privateKey"},   {"signing_algorithm", "signingAlgorithm"}};
  nlohmann::json fields = nlohmann::json::object();
  for (auto kv = it->begin(); kv != it->end(); ++kv) {
    std::string key = kv.key();
    if (auto alias = kAliases.find(key); alias != kAliases.end()) key = alias->second;
    bool known = false;
    for (const auto& [snake, camel] : kAliases) known = known || key == camel;
    if (!known) {
      return Status::InvalidArgument(at + ": unknown key '" + kv.key() +
                                     "' (known: clientId, clientSecret, clientMetadataUrl, scopes, redirectUri, grant, privateKey, "
                                     "signingAlgorithm)");
    }
    fields[key] = kv.value();
  }
  EntryReader read(fields, at, env);
  KEEL_TRY(read.string("clientId", out.client_id));
  KEEL_TRY(read.string("clientSecret", out.client_secret));
  KEEL_TRY(read.string("clientMetadataUrl", out.client_metadata_url));
  KEEL_TRY(read.string("redirectUri", out.redirect_uri));
  KEEL_TRY(read.strings("scopes", out.scopes));
  KEEL_TRY(read.string("grant", out.grant));
  KEEL_TRY(read.string("privateKey", out.private_key));
  KEEL_TRY(read.string("signingAlgorithm", out.signing_algorithm));
  if (out.grant.empty()) out.grant = "authorization_code";
  if (out.grant != "authorization_code" && out.grant != "client_credentials") {
    return Status::InvalidArgument(at + ".grant \"" + out.grant + "\" is not authorization_code or client_credentials");
  }
  if (out.grant == "client_credentials" && (out.client_id.empty() || (out.client_secret.empty() && out.private_key.empty()))) {
    return Status::InvalidArgument(at + ": the client_credentials grant needs clientId and a clientSecret or privateKey");
  }
  if (out.signing_algorithm != "ES256" && out.signing_algorithm != "RS256") {
    return Status::InvalidArgument(at + ".signingAlgorithm must be ES256 or RS256");
  }
  if (!out.client_secret.empty() && out.client_id.empty()) {
    return Status::InvalidArgument(at + ": clientSecret needs clientId");
  }
  for (const std::string* url : {&out.client_metadata_url, &out.redirect_uri}) {
    if (!url->empty() && url->rfind("http://", 0) != 0 && url->rfind("https://", 0) != 0) {
      return Status::InvalidArgument(at + ": \"" + *url + "\" is not an http(s) URL");
    }
  }
  return Status::Ok();
}

Result<McpServerConfig> parse_entry(const std::string& name, const nlohmann::json& entry, const std::string& source,
                                    const std::map<std::string, std::string>& env, bool strict) {
  const std::string where = source + ": mcpServers." + name;
  if (!valid_server_name(name)) {
    return Status::InvalidArgument(source + ": MCP server name \"" + name +
                                   "\" must be 1-32 letters, digits, '_' or '-' (its tools are named NAME__tool)");
  }
  if (!entry.is_object()) return Status::InvalidArgument(where + " must be a mapping ({\"command\": ...} or {\"url\": ...})");
  if (strict) {
    for (auto it = entry.begin(); it != entry.end(); ++it) {
      if (!known_keys().count(it.key())) {
        return Status::InvalidArgument(where + ": unknown key '" + it.key() +
                                       "' (known: type, command, args, env, cwd, url, headers, allow, deny, "
                                       "startup_timeout_ms, call_timeout_ms, enabled, accept_tool_changes, oauth, protocol_version)");
      }
    }
  }
  EntryReader read(entry, where, env);
  McpServerConfig c;
  c.name = name;
  c.source = source;
  std::string type;
  KEEL_TRY(read.string("type", type));
  if (type.empty()) KEEL_TRY(read.string("transport", type));
  KEEL_TRY(read.string("command", c.command));
  KEEL_TRY(read.strings("args", c.args));
  KEEL_TRY(read.map("env", c.env));
  KEEL_TRY(read.string("cwd", c.cwd));
  KEEL_TRY(read.string("url", c.url));
  KEEL_TRY(read.map("headers", c.headers));
  KEEL_TRY(parse_oauth(entry, where, env, c.oauth));
  KEEL_TRY(read.strings("allow", c.allow_tools));
  KEEL_TRY(read.strings("deny", c.deny_tools));
  KEEL_TRY(read.millis({"startup_timeout_ms", "startupTimeoutMs"}, c.startup_timeout_ms));
  KEEL_TRY(read.millis({"call_timeout_ms", "callTimeoutMs"}, c.call_timeout_ms));
  KEEL_TRY(read.string("protocol_version", c.protocol_version));
  if (c.protocol_version.empty()) KEEL_TRY(read.string("protocolVersion", c.protocol_version));
  if (!c.protocol_version.empty() && c.protocol_version != "auto" && c.protocol_version != "2026-07-28" &&
      c.protocol_version != "2025-11-25" && c.protocol_version != "2025-06-18" && c.protocol_version != "2025-03-26" &&
      c.protocol_version != "2024-11-05") {
    return Status::InvalidArgument(where + ": protocol_version \"" + c.protocol_version +
                                   "\" is not one keel speaks; use auto, 2026-07-28, 2025-11-25, 2025-06-18, "
                                   "2025-03-26 or 2024-11-05");
  }
  KEEL_TRY(read.boolean("enabled", c.enabled));
  KEEL_TRY(read.boolean("accept_tool_changes", c.accept_tool_changes));
  if (!c.accept_tool_changes) KEEL_TRY(read.boolean("acceptToolChanges", c.accept_tool_changes));
  bool disabled = false;
  KEEL_TRY(read.boolean("disabled", disabled));
  if (disabled) c.enabled = false;

  if (type.empty()) type = c.url.empty() ? "stdio" : "http";
  if (type == "stdio") {
    c.transport = McpTransportKind::kStdio;
    if (c.command.empty()) return Status::InvalidArgument(where + ": a stdio server needs \"command\"");
    if (!c.url.empty()) return Status::InvalidArgument(where + ": has both \"command\" and \"url\"; keep one");
  } else if (type == "http" || type == "streamable-http" || type == "streamableHttp" || type == "sse") {
    c.transport = type == "sse" ? McpTransportKind::kSse : McpTransportKind::kHttp;
    if (c.url.rfind("http://", 0) != 0 && c.url.rfind("https://", 0) != 0) {
      return Status::InvalidArgument(where + ": a " + type + " server needs \"url\" starting with http:// or https://");
    }
    if (!c.command.empty()) return Status::InvalidArgument(where + ": has both \"command\" and \"url\"; keep one");
  } else {
    return Status::InvalidArgument(where + ".type \"" + type + "\" is not one of stdio, http, sse");
  }
  return c;
}

Result<std::vector<McpServerConfig>> parse_servers(const nlohmann::json& servers, std::string_view source,
                                                   const std::map<std::string, std::string>& env, bool strict) {
  std::string src(source);
  if (!servers.is_object()) {
    return Status::InvalidArgument(src + ": mcpServers must be a mapping of server names to {command, args, env} or "
                                         "{type: http, url, headers}");
  }
  std::vector<McpServerConfig> out;
  for (auto it = servers.begin(); it != servers.end(); ++it) {
    KEEL_ASSIGN_OR_RETURN(McpServerConfig c, parse_entry(it.key(), it.value(), src, env, strict));
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

Result<std::vector<McpServerConfig>> parse_mcp_servers(const nlohmann::json& servers, std::string_view source,
                                                       const std::map<std::string, std::string>& env) {
  return parse_servers(servers, source, env, true);
}

Result<std::vector<McpServerConfig>> parse_mcp_json(std::string_view text, std::string_view source,
                                                    const std::map<std::string, std::string>& env) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  std::string src(source);
  if (doc.is_discarded()) return Status::InvalidArgument(src + ": not valid JSON");
  if (!doc.is_object()) return Status::InvalidArgument(src + ": must be a JSON object {\"mcpServers\": {...}}");
  auto it = doc.find("mcpServers");
  if (it == doc.end()) return std::vector<McpServerConfig>{};
  return parse_servers(*it, source, env, false);
}

}  // namespace keel
