// check_a2a_agent_config(): what keel.yaml's a2a_agents entries must look like (keel/a2a_config.hpp).
// Text checks only: the URL is parsed for real (libcurl's parser) when the tool first uses it.
#include "keel/a2a_config.hpp"

#include <algorithm>

namespace keel {
namespace {

bool a2a_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool a2a_env_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Why `url` cannot name an agent, or "" when it can.
std::string a2a_url_problem(std::string_view url) {
  std::string_view rest;
  if (url.starts_with("http://")) {
    rest = url.substr(7);
  } else if (url.starts_with("https://")) {
    rest = url.substr(8);
  } else {
    return "must start with http:// or https://, e.g. http://127.0.0.1:9999";
  }
  if (std::any_of(url.begin(), url.end(), [](char c) { return static_cast<unsigned char>(c) <= ' ' || c == 0x7f; })) {
    return "must not contain spaces or control characters";
  }
  if (url.find_first_of("?#") != std::string_view::npos) return "must not have a query (?) or fragment (#)";
  const std::string_view authority = rest.substr(0, rest.find('/'));
  if (authority.find('@') != std::string_view::npos) {
    return "must not carry a user name or password; use token_env for a bearer token";
  }
  if (authority.empty() || authority.front() == ':') return "has no host name";
  return {};
}

}  // namespace

Status check_a2a_agent_config(const A2aAgentConfig& agent) {
  if (agent.name.empty() || agent.name.size() > 60 ||
      !std::all_of(agent.name.begin(), agent.name.end(), a2a_name_char)) {
    return Status::InvalidArgument("name must be 1 to 60 letters, digits, '_' or '-' (the tool is a2a_NAME), got '" +
                                   agent.name + "'");
  }
  if (agent.url.empty()) return Status::InvalidArgument("url is required, e.g. http://127.0.0.1:9999");
  if (std::string problem = a2a_url_problem(agent.url); !problem.empty()) {
    return Status::InvalidArgument("url " + problem + ", got '" + agent.url + "'");
  }
  if (!agent.token_env.empty() && (!std::all_of(agent.token_env.begin(), agent.token_env.end(), a2a_env_char) ||
                                   (agent.token_env.front() >= '0' && agent.token_env.front() <= '9'))) {
    return Status::InvalidArgument("token_env must name an environment variable (letters, digits and '_'), got '" +
                                   agent.token_env + "'");
  }
  if (agent.timeout_ms < 1 || agent.timeout_ms > kA2aMaxTimeoutMs) {
    return Status::InvalidArgument("timeout_ms must be an integer >= 1 and <= " + std::to_string(kA2aMaxTimeoutMs) +
                                   ", got " + std::to_string(agent.timeout_ms));
  }
  return Status::Ok();
}

}  // namespace keel
