// `a2a_agents:` in keel.yaml: remote agents called over A2A, one tool each (keel/a2a_tools.hpp).
//
//   a2a_agents:
//     - name: researcher
//       url: http://127.0.0.1:9999
//       token_env: RESEARCHER_TOKEN   # user config only
//       timeout_ms: 120000
#include <algorithm>
#include <set>

#include "keel/a2a_config.hpp"
#include "keel/config.hpp"
#include "runtime/config_file.hpp"

namespace keel::detail {
namespace {

constexpr const char* kA2aEntryShape = "{name, url, token_env?, timeout_ms?}";

Status a2a_entry_error(const std::string& where, const std::string& what) {
  std::string m = where;
  m.append(what);
  return Status::InvalidArgument(std::move(m));
}

// A required or optional string field of an entry; an error names `label`.field.
Status a2a_string_field(const YAML::Node& entry, const char* key, const std::string& label, std::string& out) {
  const YAML::Node n = entry[key];
  if (!n) return Status::Ok();
  if (!n.IsScalar() || n.Scalar().empty()) {
    return a2a_entry_error(label, std::string(".").append(key).append(" must be a non-empty string"));
  }
  out = n.Scalar();
  return Status::Ok();
}

}  // namespace

Status parse_a2a_agents(const YAML::Node& node, const std::string& path, std::vector<A2aAgentConfig>& out) {
  if (!node.IsSequence()) {
    return a2a_entry_error(path, std::string(": a2a_agents must be a list of ").append(kA2aEntryShape));
  }
  static const char* const kKeys[] = {"name", "url", "token_env", "timeout_ms"};
  std::set<std::string> names;
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node entry = node[i];
    std::string label = path;
    label.append(": a2a_agents[").append(std::to_string(i)).append("]");
    if (!entry.IsMap()) return a2a_entry_error(label, std::string(" must be a mapping ").append(kA2aEntryShape));
    A2aAgentConfig agent;
    agent.source = path;
    KEEL_TRY(a2a_string_field(entry, "name", label, agent.name));
    if (agent.name.empty()) return a2a_entry_error(label, " needs a name (the tool is a2a_NAME)");
    label.append(" ('").append(agent.name).append("')");
    for (auto k = entry.begin(); k != entry.end(); ++k) {
      const std::string key = k->first.IsScalar() ? k->first.Scalar() : std::string();
      if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
        return a2a_entry_error(label, ": unknown key '" + key + "'; known keys: name, url, token_env, timeout_ms");
      }
    }
    KEEL_TRY(a2a_string_field(entry, "url", label, agent.url));
    if (agent.url.empty()) return a2a_entry_error(label, ".url is required, e.g. http://127.0.0.1:9999");
    KEEL_TRY(a2a_string_field(entry, "token_env", label, agent.token_env));
    if (const YAML::Node t = entry["timeout_ms"]) {
      int64_t ms = 0;
      if (!t.IsScalar() || !YAML::convert<int64_t>::decode(t, ms) || ms < 1 || ms > kA2aMaxTimeoutMs) {
        return a2a_entry_error(
            label, ".timeout_ms must be an integer from 1 to " + std::to_string(kA2aMaxTimeoutMs) + " (milliseconds)");
      }
      agent.timeout_ms = ms;
    }
    if (Status s = check_a2a_agent_config(agent); !s.ok()) return a2a_entry_error(label, "." + s.message());
    if (!names.insert(agent.name).second) {
      return a2a_entry_error(label, ": the name is used by an earlier entry; each agent needs its own");
    }
    out.push_back(std::move(agent));
  }
  return Status::Ok();
}

Status apply_a2a_layer(const ConfigLayer& layer, bool from_workspace, const std::string& user_config,
                       KeelConfig& config) {
  for (const A2aAgentConfig& agent : layer.a2a_agents) {
    if (from_workspace && !agent.token_env.empty()) {
      return Status::InvalidArgument(layer.path + ": a2a_agents '" + agent.name +
                                     "'.token_env is only honoured in your user config (" + user_config +
                                     "), so that a repository cannot send your environment's secrets to a server it "
                                     "names; declare the agent there");
    }
    std::erase_if(config.a2a_agents, [&](const A2aAgentConfig& a) { return a.name == agent.name; });
    config.a2a_agents.push_back(agent);
  }
  return Status::Ok();
}

}  // namespace keel::detail
