// Test helper: an api::AgentFactory whose profiles run on an OpenAI-compatible mock model (e.g.
// MockLlmServer) with keel's built-in tools in a workspace and ask_user answered by `asker`.
//
//   keel::testing::TestAgentFactory factory({.base_url = mock.base_url(), .workspace = dir.str(), .store = store.get()});
//
// Thread-safety: make() may be called from any thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/agent_factory.hpp"
#include "keel/ask_user.hpp"
#include "keel/config.hpp"
#include "keel/store/store.hpp"

namespace keel::testing {

struct TestAgentFactoryOptions {
  std::string base_url;                       // the mock model's /v1 root
  std::string workspace;                      // an existing directory
  Store* store = nullptr;                     // where runs are kept; must outlive the factory
  std::vector<api::ProfileInfo> profiles;     // empty: one profile "default" (model "mock-model", 8 rounds)
  std::shared_ptr<UserAsker> asker;           // ask_user's asker; nullptr: no ask_user tool
  ApprovalPolicy approvals;                   // the policy every run starts from
  bool stream = true;                         // ask the mock to stream
};

class TestAgentFactory final : public api::AgentFactory {
 public:
  explicit TestAgentFactory(TestAgentFactoryOptions options);
  std::vector<api::ProfileInfo> profiles() const override { return options_.profiles; }
  Result<std::unique_ptr<api::AgentLease>> make(const api::RunSettings& settings,
                                                std::function<bool()> suspend_on_stop) override;
  const ToolRegistry& tools() const override { return tools_; }

 private:
  TestAgentFactoryOptions options_;
  ToolRegistry tools_;
};

}  // namespace keel::testing
