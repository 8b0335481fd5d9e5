// An agent assembled from configuration, with everything it borrows.
#include "assembly/store_access.hpp"
#include "keel/assembly.hpp"
#include "keel/spawn_agent.hpp"

namespace keel::assembly {

AssembledAgent::~AssembledAgent() = default;

Result<std::unique_ptr<AssembledAgent>> AssembledAgent::create(const HostInputs& in, const HostOptions& host,
                                                               const BackendWrapper& wrap_backend) {
  std::unique_ptr<AssembledAgent> a(new AssembledAgent());
  a->host_ = host;
  KEEL_ASSIGN_OR_RETURN(a->workspace_, resolve_workspace(in.workspace));
  KEEL_ASSIGN_OR_RETURN(a->config_, resolve_host_config(in, a->workspace_));
  KEEL_ASSIGN_OR_RETURN(a->llm_, make_backend(a->config_));
  if (wrap_backend) {
    KEEL_ASSIGN_OR_RETURN(a->llm_, wrap_backend(std::move(a->llm_)));
  }
  if (host.store) {
    KEEL_ASSIGN_OR_RETURN(a->store_, open_default_store());
  }
  KEEL_ASSIGN_OR_RETURN(a->toolbox_, Toolbox::create(a->config_, a->workspace_, a->store_.get(), *a->llm_, host));
  a->blueprint_ = agent_blueprint(a->config_, a->workspace_, a->store_.get(), *a->toolbox_, *a->llm_, host);
  KEEL_TRY(a->blueprint_.problem);
  a->agent_ = std::make_unique<Agent>(*a->llm_, a->toolbox_->registry(), a->blueprint_.options);
  for (const std::shared_ptr<Hooks>& hooks : a->blueprint_.hooks) a->agent_->add_hooks(hooks);
  return a;
}

Status AssembledAgent::set_approver(std::shared_ptr<Approver> approver) {
  agent_->set_approver(approver);
  if (!host_.spawn_agent) return Status::Ok();
  // Sub-agents share the backend, store, policy and approver; their saved "always" answers go
  // through the store like the parent's.
  SpawnAgentOptions spawn;
  spawn.hooks = blueprint_.subagent_hooks;
  return register_spawn_agent_tool(toolbox_->registry(), *llm_, blueprint_.options, std::move(approver), spawn);
}

}  // namespace keel::assembly
