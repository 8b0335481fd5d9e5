// Model name -> backend, base URL and key. Provider prefixes only choose a default server; an
// explicit base URL always wins, so "ollama/x" can point at another machine.
#include "runtime/model_spec.hpp"

#include <array>
#include <utility>

#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

constexpr std::string_view kOpenAiBase = "https://api.openai.com/v1";
constexpr std::string_view kAnthropicPrefix = "anthropic/";
constexpr std::string_view kAnthropicBase = "https://api.anthropic.com";

struct Provider {
  std::string_view prefix;        // "ollama/"
  std::string_view default_base;  // empty: computed (openai, ollama)
};

constexpr std::array<Provider, 5> kProviders = {{
    {"openai/", ""},
    {"ollama/", ""},
    {"lmstudio/", "http://127.0.0.1:1234/v1"},
    {"llamacpp/", "http://127.0.0.1:8080/v1"},
    {"vllm/", "http://127.0.0.1:8000/v1"},
}};

std::string strip_trailing_slashes(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

// Checks and normalizes a base URL; `what` names where it came from, for the message.
Result<std::string> checked_base_url(std::string_view raw, const std::string& what) {
  std::string url = strip_trailing_slashes(std::string(trim(raw)));
  bool http = url.starts_with("http://") && url.size() > 7;
  bool https = url.starts_with("https://") && url.size() > 8;
  if (!http && !https) {
    return Status::InvalidArgument(what + " '" + std::string(raw) +
                                   "' must be an http:// or https:// URL, e.g. http://127.0.0.1:8080/v1");
  }
  return url;
}

}  // namespace

std::string env_value(const std::map<std::string, std::string>& env, const std::string& name) {
  auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

std::string ollama_base_url(std::string_view ollama_host) {
  std::string_view host = trim(ollama_host);
  if (host.empty()) return "http://127.0.0.1:11434/v1";
  std::string scheme = "http";
  bool explicit_scheme = false;
  if (size_t sep = host.find("://"); sep != std::string_view::npos) {
    scheme = std::string(host.substr(0, sep));
    host.remove_prefix(sep + 3);
    explicit_scheme = true;
  }
  size_t slash = host.find('/');
  std::string authority(host.substr(0, slash));
  std::string path = slash == std::string_view::npos ? std::string() : std::string(host.substr(slash));
  if (authority.starts_with(':')) authority = "127.0.0.1" + authority;
  // The host part, without a port; IPv6 literals are bracketed.
  size_t host_end = authority.starts_with('[') ? authority.find(']') + 1 : authority.find(':');
  if (host_end == 0 || host_end > authority.size()) host_end = authority.size();
  std::string name = authority.substr(0, host_end);
  std::string port = authority.substr(host_end);  // ":11434" or empty
  if (name == "0.0.0.0" || name.empty()) name = "127.0.0.1";
  if (name == "[::]") name = "[::1]";
  // With a scheme the URL's own default port applies (80/443), as a URL reads; bare hosts get 11434.
  if (port.empty() && !explicit_scheme) port = ":11434";
  path = strip_trailing_slashes(path);
  if (!path.ends_with("/v1")) path += "/v1";
  return scheme + "://" + name + port + path;
}

namespace {

// The key: --api-key > the provider's environment key (`env_key`) > the config file's api_key or
// api_key_env. A base URL chosen by the workspace file (an untrusted repository) never receives the
// environment's key.
Status resolve_api_key(const ModelInputs& in, const std::map<std::string, std::string>& env,
                       const std::string& env_key, ModelSettings& out) {
  bool untrusted_url = in.base_url_from_workspace && !in.flag_base_url && out.base_url == in.config_base_url;
  if (in.flag_api_key) {
    out.api_key = *in.flag_api_key;
  } else if (!env_key.empty() && !untrusted_url) {
    out.api_key = env_key;
  } else if (in.config_api_key) {
    out.api_key = *in.config_api_key;
  } else if (in.config_api_key_env) {
    auto it = env.find(*in.config_api_key_env);
    if (it == env.end() || it->second.empty()) {
      return Status::InvalidArgument(in.config_api_key_source + ": api_key_env names " + *in.config_api_key_env +
                                     ", which is not set in the environment; export it or remove api_key_env");
    }
    out.api_key = it->second;
  }
  return Status::Ok();
}

// anthropic/NAME: the Messages API. Base URL: --base-url > ANTHROPIC_BASE_URL > config base_url >
// https://api.anthropic.com; key: --api-key > ANTHROPIC_API_KEY > config (OPENAI_* never apply).
Result<ModelSettings> resolve_anthropic(const ModelInputs& in, const std::map<std::string, std::string>& env,
                                        ModelSettings out) {
  out.kind = ModelSettings::Kind::kAnthropic;
  out.model = in.name.substr(kAnthropicPrefix.size());
  if (out.model.empty()) {
    return Status::InvalidArgument("model '" + in.name + "' (from " + in.source +
                                   ") has no model name after 'anthropic/', e.g. anthropic/claude-sonnet-4-5");
  }
  const std::string base_env = env_value(env, "ANTHROPIC_BASE_URL");
  if (in.flag_base_url) {
    KEEL_ASSIGN_OR_RETURN(out.base_url, checked_base_url(*in.flag_base_url, "--base-url"));
  } else if (!base_env.empty()) {
    KEEL_ASSIGN_OR_RETURN(out.base_url, checked_base_url(base_env, "ANTHROPIC_BASE_URL"));
  } else if (in.config_base_url) {
    KEEL_ASSIGN_OR_RETURN(out.base_url,
                          checked_base_url(*in.config_base_url, in.config_base_url_source + ": base_url"));
  } else {
    out.base_url = std::string(kAnthropicBase);
  }
  KEEL_TRY(resolve_api_key(in, env, env_value(env, "ANTHROPIC_API_KEY"), out));
  return out;
}

}  // namespace

Result<ModelSettings> resolve_model(const ModelInputs& in, const std::map<std::string, std::string>& env) {
  ModelSettings out;
  out.name = in.name;
  out.source = in.source;
  if (in.name == "rules") {
    out.kind = ModelSettings::Kind::kRules;
    out.model = "rules";
    return out;
  }
  if (in.name.starts_with(kAnthropicPrefix)) return resolve_anthropic(in, env, std::move(out));
  if (in.name.starts_with("replay:")) {
    out.kind = ModelSettings::Kind::kReplay;
    out.model = in.name.substr(7);  // the cassette's path
    if (out.model.empty()) {
      return Status::InvalidArgument("model '" + in.name + "' (from " + in.source +
                                     ") names no cassette; use replay:FILE with a file recorded by --record FILE");
    }
    return out;
  }
  if (in.name.starts_with("gguf:") || in.name.starts_with("local/")) {
    out.kind = ModelSettings::Kind::kLocal;
    out.model = in.name.starts_with("gguf:") ? in.name.substr(5) : in.name;  // a path, or local/NAME
    if (out.model.empty() || out.model == "local/") {
      return Status::InvalidArgument("model '" + in.name + "' (from " + in.source +
                                     ") names no file; use gguf:/path/model.gguf or local/NAME (keel models list)");
    }
    return out;
  }
  out.kind = ModelSettings::Kind::kOpenAiCompatible;

  const Provider* provider = nullptr;
  for (const Provider& p : kProviders) {
    if (in.name.starts_with(p.prefix)) provider = &p;
  }
  out.model = provider ? in.name.substr(provider->prefix.size()) : in.name;
  if (out.model.empty()) {
    return Status::InvalidArgument("model '" + in.name + "' (from " + in.source + ") has no model name after '" +
                                   std::string(provider ? provider->prefix : "") + "', e.g. ollama/qwen2.5:7b");
  }

  // The base URL, highest precedence first. OPENAI_BASE_URL describes OpenAI, so it only applies to
  // openai/ and unprefixed names; OLLAMA_HOST only to ollama/.
  bool openai_like = provider == nullptr || provider->prefix == "openai/";
  std::string openai_base_env = env_value(env, "OPENAI_BASE_URL");
  std::string api_key_env = env_value(env, "OPENAI_API_KEY");
  if (in.flag_base_url) {
    KEEL_ASSIGN_OR_RETURN(out.base_url, checked_base_url(*in.flag_base_url, "--base-url"));
  } else if (openai_like && !openai_base_env.empty()) {
    KEEL_ASSIGN_OR_RETURN(out.base_url, checked_base_url(openai_base_env, "OPENAI_BASE_URL"));
  } else if (provider && provider->prefix == "ollama/" && !env_value(env, "OLLAMA_HOST").empty()) {
    KEEL_ASSIGN_OR_RETURN(out.base_url,
                          checked_base_url(ollama_base_url(env_value(env, "OLLAMA_HOST")), "OLLAMA_HOST"));
  } else if (in.config_base_url) {
    KEEL_ASSIGN_OR_RETURN(out.base_url,
                          checked_base_url(*in.config_base_url, in.config_base_url_source + ": base_url"));
  } else if (provider == nullptr) {
    if (api_key_env.empty()) {
      return Status::InvalidArgument("model '" + in.name +
                                     "' needs a base URL: pass --base-url, set OPENAI_BASE_URL, or use a provider "
                                     "prefix (openai/, ollama/, lmstudio/, llamacpp/, vllm/)");
    }
    out.base_url = std::string(kOpenAiBase);
  } else if (provider->prefix == "openai/") {
    out.base_url = std::string(kOpenAiBase);
  } else if (provider->prefix == "ollama/") {
    out.base_url = ollama_base_url("");
  } else {
    out.base_url = std::string(provider->default_base);
  }

  KEEL_TRY(resolve_api_key(in, env, api_key_env, out));
  return out;
}

}  // namespace keel::detail
