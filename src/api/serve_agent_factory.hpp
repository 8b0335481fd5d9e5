// keel serve's agents, built through the assembly layer (keel/assembly.hpp) like `keel run`'s:
// the top-level setup is profile "keel", keel.yaml's `profiles:` follow, each resolved once at
// start. The toolbox (tools, MCP servers, skills) is shared by every run; backends are pooled per
// profile so runs reuse their connections. Differences from `keel run`, by design: ask_user is
// answered by `asker` (the web UI), there is no spawn_agent (HostOptions::spawn_agent), and a
// run may narrow its profile's tools (profile `tools:`) and set max_rounds and approval_mode.
// A run's approval_mode comes from a client, so it only tightens the operator's policy (a floor:
// auto < confirm < deny) unless keel.yaml's approvals.client_may_loosen (user config) allows more.
//
// Thread-safety: make() may be called from any thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/agent_factory.hpp"
#include "api/api_routes.hpp"
#include "keel/assembly.hpp"
#include "keel/config.hpp"
#include "keel/store/store.hpp"

namespace keel::api {

// keel serve's flags: the same inputs `keel run` takes; a profile's own settings override them.
using ServeAgentFlags = assembly::HostInputs;

class ServeAgentFactory final : public AgentFactory {
 public:
  // Errors are configuration problems (a profile whose model cannot be used, a bad keel.yaml),
  // formatted for the user. `asker` answers ask_user; `notice` prints warnings.
  static Result<std::unique_ptr<ServeAgentFactory>> create(const ServeAgentFlags& flags, Store& store,
                                                           std::shared_ptr<UserAsker> asker,
                                                           const std::function<void(const std::string&)>& notice);
  ~ServeAgentFactory() override;

  std::vector<ProfileInfo> profiles() const override;
  Result<std::unique_ptr<AgentLease>> make(const RunSettings& settings, std::function<bool()> suspend_on_stop) override;
  const ToolRegistry& tools() const override { return toolbox_->registry(); }
  // The options and hooks a run of `settings` gets, on `llm` (make() builds its Agent from them).
  Result<assembly::AgentBlueprint> blueprint(const RunSettings& settings, LlmClient& llm) const;
  const std::string& workspace() const { return workspace_; }
  // The top-level configuration (profile "keel").
  const KeelConfig& config() const { return base_; }
  // GET /api/skills and proposal decisions.
  SkillsAccess skills_access();

 private:
  struct Profile {
    ProfileInfo info;
    KeelConfig config;
    std::vector<std::string> tools;  // allow-list; empty: all
    std::mutex mu;
    std::vector<std::unique_ptr<LlmClient>> idle;  // backends not in use
  };
  ServeAgentFactory() = default;
  Result<std::shared_ptr<LlmClient>> take_backend(Profile& profile);
  // The profile `settings` names (the default when it names none); InvalidArgument for an unknown one.
  Result<Profile*> find_profile(const RunSettings& settings) const;

  Store* store_ = nullptr;
  std::string workspace_;
  KeelConfig base_;
  assembly::HostOptions host_;
  std::unique_ptr<LlmClient> skills_llm_;  // before toolbox_: the skill runner borrows it
  std::unique_ptr<assembly::Toolbox> toolbox_;
  std::vector<std::unique_ptr<Profile>> profiles_;
};

}  // namespace keel::api
