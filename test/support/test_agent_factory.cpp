#include "support/test_agent_factory.hpp"

#include <algorithm>
#include <stdexcept>

#include "keel/builtin_tools.hpp"
#include "keel/openai_client.hpp"

namespace keel::testing {

TestAgentFactory::TestAgentFactory(TestAgentFactoryOptions options) : options_(std::move(options)) {
  if (options_.profiles.empty()) {
    api::ProfileInfo p;
    p.name = "default";
    p.model = "mock-model";
    p.description = "the mock model";
    p.max_rounds = 8;
    options_.profiles.push_back(p);
  }
  BuiltinToolOptions builtin;
  builtin.workspace_root = options_.workspace;
  builtin.shell_timeout_ms = 10000;
  if (!register_builtin_tools(tools_, builtin).ok()) throw std::runtime_error("test workspace is unusable");
  if (options_.asker && !register_ask_user_tool(tools_, options_.asker).ok()) {
    throw std::runtime_error("ask_user could not be registered");
  }
}

Result<std::unique_ptr<api::AgentLease>> TestAgentFactory::make(const api::RunSettings& settings,
                                                                std::function<bool()> suspend_on_stop) {
  const std::string name = settings.profile.empty() ? options_.profiles.front().name : settings.profile;
  auto profile = std::find_if(options_.profiles.begin(), options_.profiles.end(),
                              [&](const api::ProfileInfo& p) { return p.name == name; });
  if (profile == options_.profiles.end()) return Status::InvalidArgument("no profile '" + name + "'");
  OpenAiOptions client;
  client.base_url = options_.base_url;
  client.model = profile->model;
  client.retry.max_attempts = 1;
  auto lease = std::make_unique<api::AgentLease>();
  lease->llm = make_openai_client(std::move(client));
  AgentOptions options;
  options.workspace = options_.workspace;
  options.store = options_.store;
  options.stream = options_.stream;
  options.load_agents_md = false;
  options.config.max_rounds = settings.max_rounds.value_or(profile->max_rounds);
  options.approvals = options_.approvals;
  if (settings.approval_mode) {  // as ServeAgentFactory: a client's mode only tightens unless the policy allows more
    KEEL_TRY(apply_requested_approval_mode(options.approvals, *settings.approval_mode, "the run's approval_mode"));
  }
  options.suspend_on_stop = std::move(suspend_on_stop);
  lease->agent = std::make_unique<Agent>(*lease->llm, tools_, std::move(options));
  return lease;
}

}  // namespace keel::testing
