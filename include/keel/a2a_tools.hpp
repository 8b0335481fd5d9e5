// keel/a2a_tools.hpp — remote agents as tools: one tool per agent of keel.yaml's `a2a_agents:`,
// speaking the Agent2Agent protocol (A2A v1.0 over JSON-RPC, and the older v0.3 methods when the
// agent's card only offers those).
//
//   a2a_NAME  {message, context_id?}  → the remote agent's answer as text, with its context_id and
//             task_id so that a later call can continue the conversation. Risk medium, not
//             read-only, not cacheable.
//
// A call sends SendMessage; an answer that is a task still working is polled with GetTask until it
// is final, bounded by the agent's timeout_ms (on timeout the task is cancelled with CancelTask and
// the call fails saying so). A task that asks for input is returned as "the remote agent asks: ..."
// with the ids; a call with that context_id answers it. A task that ends failed, rejected or
// canceled is a tool error naming the agent and the state.
//
// The tool's description comes from the agent card (URL/.well-known/agent-card.json), read at
// registration with a short timeout; an agent that cannot be reached then does not stop the
// registration: its tool gets a plain description and reads the card at its first call, or says
// why it cannot.
//
// Security: requests go only to the configured URL's origin (scheme, host and port). A card whose
// JSON-RPC endpoint lies on another origin is refused, so the bearer token is never sent anywhere
// else; redirects are not followed (a proxy from the environment is used as for the model clients).
// Every request has a timeout, answers are read up to max_response_bytes and the tool's output is
// cut at max_output_bytes.
//
//   keel::A2aToolOptions a2a;
//   a2a.agents = config.a2a_agents;
//   a2a.env = keel::current_environment();
//   KEEL_TRY(keel::register_a2a_tools(registry, a2a));
//
// Thread-safety: register_a2a_tools() follows ToolRegistry::add()'s rules; the tools may run on
// any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "keel/a2a_config.hpp"
#include "keel/result.hpp"

namespace keel {

class ToolRegistry;

struct A2aToolOptions {
  std::vector<A2aAgentConfig> agents;
  // Where each agent's token_env is looked up (hosts pass current_environment()).
  std::map<std::string, std::string> env;
  // Read every card at registration (in parallel), for the tools' descriptions.
  bool fetch_cards = true;
  int64_t card_timeout_ms = 3000;      // that read's limit, per agent
  int64_t connect_timeout_ms = 10000;  // TCP/TLS connect of each request (capped by what is left)
  int64_t cancel_timeout_ms = 5000;    // the CancelTask request sent after a call timed out
  int64_t poll_initial_ms = 100;       // the first wait before GetTask; it doubles up to poll_max_ms
  int64_t poll_max_ms = 2000;
  size_t max_response_bytes = size_t{8} << 20;  // one HTTP answer; a longer one fails the request
  size_t max_output_bytes = 64 * 1024;          // the answer's text in the tool output; longer is cut
};

// Registers a2a_NAME for each agent. InvalidArgument (naming the agent and its source) for an
// agent that check_a2a_agent_config() refuses, two agents of one name, or out-of-range options;
// an error from ToolRegistry::add (a name already taken) is returned as is.
Status register_a2a_tools(ToolRegistry& registry, const A2aToolOptions& options);

}  // namespace keel
