// api/agent_factory.hpp — what keel serve needs from its host to run agents: the profiles it
// offers and a ready Agent for one of them.
//
// A profile is a named agent setup from keel.yaml (model, tools, approval policy, max rounds); the
// API's messages and the OpenAI-compatible endpoint's `model` field pick one. The CLI builds the
// factory from the configuration; tests build one around a mock model.
//
// Thread-safety: make() and the accessors may be called from any thread at once.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "keel/agent.hpp"
#include "keel/llm_client.hpp"
#include "keel/result.hpp"
#include "keel/tool_registry.hpp"

namespace keel::api {

struct ProfileInfo {
  std::string name;         // what clients send as `profile` (API) or `model` (/v1)
  std::string model;        // the backend it runs on, as `keel run --model` takes it
  std::string description;  // one line for lists
  int max_rounds = 0;       // the profile's round limit
};

// A run's choices on top of its profile.
struct RunSettings {
  std::string profile;                        // empty: the default profile (the first)
  std::optional<int> max_rounds;              // 1..1000
  // auto | confirm | deny, from the client: tightens the profile's policy (apply_requested_approval_mode)
  std::optional<std::string> approval_mode;
};

// One run's agent and the backend it borrows; the agent goes first.
struct AgentLease {
  std::shared_ptr<LlmClient> llm;
  std::unique_ptr<Agent> agent;
  AgentLease() = default;
  AgentLease(const AgentLease&) = delete;
  AgentLease& operator=(const AgentLease&) = delete;
  ~AgentLease() { agent.reset(); }
};

class AgentFactory {
 public:
  virtual ~AgentFactory() = default;
  // The profiles offered, the default first; never empty.
  virtual std::vector<ProfileInfo> profiles() const = 0;
  // A new Agent for one run, with the host's store, tools, workspace and approval policy, and
  // `suspend_on_stop` as AgentOptions::suspend_on_stop. InvalidArgument naming the problem for an
  // unknown profile or a bad setting. The caller adds hooks and an approver.
  virtual Result<std::unique_ptr<AgentLease>> make(const RunSettings& settings,
                                                   std::function<bool()> suspend_on_stop) = 0;
  // The tools agents get (GET /api/tools).
  virtual const ToolRegistry& tools() const = 0;
};

}  // namespace keel::api
