// keel/spawn_agent.hpp — the spawn_agent tool: a sub-agent with its own conversation (seed 001).
//
//   spawn_agent {task, tools?: [names], max_rounds?} → the sub-agent's final answer
//
// The sub-agent runs on the same backend, registry and store as its parent, with its own
// conversation, the tools it was given (a subset of the parent's; all of them when none are
// named) and its own round limit. Its session is stored as a child of the calling run's session
// and hidden from normal session lists. Depth is bounded: an agent at depth max_depth - 1 gets
// sub-agents without spawn_agent, and a call beyond the limit is refused with a message. A failed
// sub-agent run is a tool error naming why; its answer is the tool's ok result.
//
// Lifetime: `llm`, `registry`, the store in `base` and `approver` must outlive every agent that can
// call the tool (the tool keeps references).
// Thread-safety: each call builds its own Agent, so calls may run concurrently.
#pragma once

#include <memory>
#include <vector>

#include "keel/agent.hpp"
#include "keel/approver.hpp"
#include "keel/hooks.hpp"
#include "keel/llm_client.hpp"
#include "keel/result.hpp"
#include "keel/tool_registry.hpp"

namespace keel {

struct SpawnAgentOptions {
  int max_depth = 2;           // deepest nesting: 2 lets a top-level agent spawn, and its sub-agents spawn once more
  int default_max_rounds = 8;  // a sub-agent's round limit when the call gives none
  int max_rounds_cap = 20;     // the most rounds a call may ask for
  int timeout_ms = 600000;     // the tool's per-call timeout (a sub-agent run takes a while)
  // Added to every sub-agent, so that hooks which decide about tool calls (e.g. the settings
  // files' command hooks) see the sub-agents' calls too. They must allow concurrent runs.
  std::vector<std::shared_ptr<Hooks>> hooks = {};
};

// Adds spawn_agent to `registry`. `base` is the sub-agents' AgentOptions (workspace, config,
// store, approval policy); its depth, parent session, allow-list and round limit are set per
// call. `approver` (may be null: calls needing approval are then denied) decides for the
// sub-agents. Errors from ToolRegistry::add are returned as is.
Status register_spawn_agent_tool(ToolRegistry& registry, LlmClient& llm, AgentOptions base,
                                 std::shared_ptr<Approver> approver, SpawnAgentOptions options = {});

}  // namespace keel
