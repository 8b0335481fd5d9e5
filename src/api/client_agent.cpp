#include "api/client_agent.hpp"

#include <utility>

#include "api/request_hooks.hpp"
#include "keel/approver.hpp"

namespace keel::api {

ClientAgent lease_client_agent(AgentFactory& factory, ClientRunSettings settings,
                               const std::string& approval_denied_reason) {
  ClientAgent out;
  RunSettings run;
  run.profile = settings.profile;
  Result<std::unique_ptr<AgentLease>> lease = factory.make(run, nullptr);
  if (!lease.ok()) {
    out.lease_error = lease.status();
    return out;
  }
  Agent& agent = *(*lease)->agent;
  if (Status tools = agent.set_client_tools(std::move(settings.client_tools)); !tools.ok()) {
    out.tools_error = tools;
    return out;
  }
  agent.set_approver(make_deny_all(approval_denied_reason));
  agent.add_hooks(std::make_shared<ClientSampling>(std::move(settings.sampling)));
  if (!settings.tool_choice.empty()) agent.add_hooks(std::make_shared<FirstCallToolChoice>(std::move(settings.tool_choice)));
  out.lease = std::move(lease).value();
  return out;
}

}  // namespace keel::api
