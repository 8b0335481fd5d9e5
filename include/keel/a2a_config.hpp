// keel/a2a_config.hpp — one remote agent that keel calls over the Agent2Agent protocol (A2A), as
// keel.yaml's `a2a_agents:` declares it. Kept apart from keel/a2a_tools.hpp so that the
// configuration types need no tool or JSON headers.
//
//   a2a_agents:
//     - name: researcher              # the tool is a2a_researcher
//       url: http://127.0.0.1:9999    # the card is read from URL/.well-known/agent-card.json
//       token_env: RESEARCHER_TOKEN   # optional: a bearer token from this environment variable
//       timeout_ms: 120000
//
// Thread-safety: plain values and free functions without shared state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "keel/result.hpp"

namespace keel {

struct A2aAgentConfig {
  std::string name;             // [A-Za-z0-9_-], 1 to 60 characters; the tool is "a2a_" + name
  std::string url;              // http(s) URL of the agent (its origin and an optional path)
  std::string token_env;        // environment variable holding a bearer token; empty: none is sent
  int64_t timeout_ms = 120000;  // one call, from sending the message to the final answer
  std::string source;           // the config file that declared it, for messages
};

// The most a timeout_ms may be: a day.
inline constexpr int64_t kA2aMaxTimeoutMs = 86400000;

// Ok when `agent` can be used; else InvalidArgument saying which field is wrong and what is
// accepted (the message starts with the field's name, e.g. "url must start with http:// ...", so a
// config reader can put the file and entry in front). Checks the text only; nothing is fetched.
Status check_a2a_agent_config(const A2aAgentConfig& agent);

}  // namespace keel
