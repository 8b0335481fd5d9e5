#include "mcp_server/keel_mcp_server_options.hpp"

#include "assembly/tool_setup.hpp"
#include "keel/assembly/secrets.hpp"
#include "mcp_server/keel_catalog.hpp"
#include "runtime/approval_policy.hpp"

namespace keel::mcp {

Result<KeelMcpServerOptions> keel_mcp_server_options(const KeelConfig& config, const std::string& workspace,
                                                          Store* store, const ToolRegistry& tools,
                                                          std::function<void(const std::string&)> log) {
  std::vector<ApprovalRule> saved;
  if (store != nullptr) {
    if (Result<std::vector<ApprovalRule>> rules = store->list_approval_rules(workspace); rules.ok()) saved = *rules;
  }
  KEEL_ASSIGN_OR_RETURN(std::shared_ptr<detail::ApprovalPolicyGate> gate,
                        detail::ApprovalPolicyGate::create(config.approvals, Risk::kHigh, saved));
  KeelMcpServerOptions options;
  options.tools = &tools;
  options.gate = std::move(gate);
  options.workspace_root = workspace;
  options.instructions = "keel's tools for the workspace " + workspace +
                         ". Calls follow keel's approval policy; what it would ask a person about is asked of your user "
                         "(elicitation), or refused when this client cannot ask. "
                         "Resources: the workspace's files, stored sessions and memory notes; prompts: its skills.";
  options.on_log = std::move(log);
  options.redactor = assembly::make_redactor(config, current_environment());
  KeelCatalogOptions catalog;
  catalog.store = store;
  catalog.workspace = workspace;
  if (config.skills.enabled) {
    KnowledgeSkillSet skills = assembly::load_workspace_knowledge_skills(config, workspace, store);
    for (const std::string& problem : skills.problems) {
      if (options.on_log) options.on_log("skill skipped: " + problem);
    }
    catalog.skills = std::move(skills.skills);
  }
  options.catalogs.push_back(std::make_shared<KeelCatalog>(std::move(catalog)));
  return options;
}

}  // namespace keel::mcp
