// keel serve's agents, built from the configuration: the top-level setup is profile "keel" (or
// the first of keel.yaml's `profiles:` takes its place as default when named so), each profile
// resolved once at start. Tools, MCP servers and skills are shared by every run; backends are
// pooled per profile so runs reuse their connections.
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
#include "keel/config.hpp"
#include "keel/mcp.hpp"
#include "keel/skill_runner.hpp"
#include "keel/store/store.hpp"

namespace keel::cli {

struct ServeAgentFlags {
  std::optional<std::string> model, base_url, api_key, workspace;
  std::optional<int> max_rounds;
  std::optional<std::string> approve_mode;
};

class ServeAgentFactory final : public api::AgentFactory {
 public:
  // Errors are configuration problems (a profile whose model cannot be used, a bad keel.yaml),
  // formatted for the user. `asker` answers ask_user; `notice` prints warnings.
  static Result<std::unique_ptr<ServeAgentFactory>> create(const ServeAgentFlags& flags, Store& store,
                                                           std::shared_ptr<UserAsker> asker,
                                                           const std::function<void(const std::string&)>& notice);
  ~ServeAgentFactory() override;

  std::vector<api::ProfileInfo> profiles() const override;
  Result<std::unique_ptr<api::AgentLease>> make(const api::RunSettings& settings,
                                                std::function<bool()> suspend_on_stop) override;
  const ToolRegistry& tools() const override { return *tools_; }
  const std::string& workspace() const { return workspace_; }
  // The top-level configuration (profile "keel").
  const KeelConfig& config() const { return base_; }
  // GET /api/skills and proposal decisions.
  api::SkillsAccess skills_access();

 private:
  struct Profile {
    api::ProfileInfo info;
    KeelConfig config;
    std::vector<std::string> tools;  // allow-list; empty: all
    std::mutex mu;
    std::vector<std::unique_ptr<LlmClient>> idle;  // backends not in use
  };
  ServeAgentFactory() = default;
  Result<std::shared_ptr<LlmClient>> take_backend(Profile& profile);

  Store* store_ = nullptr;
  std::string workspace_;
  std::map<std::string, std::string> env_;
  KeelConfig base_;
  std::unique_ptr<McpHub> mcp_;
  std::unique_ptr<ToolRegistry> tools_;
  std::unique_ptr<LlmClient> skills_llm_;
  std::unique_ptr<SkillRunner> skills_;
  std::vector<KnowledgeSkill> knowledge_;
  nlohmann::json executable_ = nlohmann::json::array();  // id, description, approval of each executable skill
  std::vector<std::unique_ptr<Profile>> profiles_;
};

}  // namespace keel::cli
