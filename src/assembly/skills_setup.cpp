#include "assembly/skills_setup.hpp"

#include <cstdlib>

#include "assembly/tool_setup.hpp"
#include "keel/assembly.hpp"

namespace keel::assembly {

Result<SkillsWorkspace> open_skills_workspace(const std::optional<std::string>& workspace_flag,
                                              const SkillModelFlags& flags) {
  SkillsWorkspace ws;
  KEEL_ASSIGN_OR_RETURN(ws.workspace, resolve_workspace(workspace_flag));
  ws.env = current_environment();
  if (const char* home = std::getenv("HOME")) ws.home = home;
  ConfigInputs in;
  in.model = flags.model;
  in.base_url = flags.base_url;
  in.api_key = flags.api_key;
  in.env = ws.env;
  in.workspace = ws.workspace;
  in.home = ws.home;
  KEEL_ASSIGN_OR_RETURN(ws.config, resolve_config(in));
  KEEL_ASSIGN_OR_RETURN(ws.skills, load_executable_skills(ws.config.skill_dirs));
  return ws;
}

SkillModelFactory make_skill_model_factory(const SkillsWorkspace& ws) {
  ConfigInputs base;
  base.env = ws.env;
  base.workspace = ws.workspace;
  base.home = ws.home;
  return [base](std::string_view model) -> Result<std::unique_ptr<LlmClient>> {
    ConfigInputs in = base;
    in.model = std::string(model);
    KEEL_ASSIGN_OR_RETURN(KeelConfig config, resolve_config(in));
    return make_backend(config);
  };
}

Result<std::unique_ptr<ToolRegistry>> make_action_tools(const SkillsWorkspace& ws, Store* store) {
  auto tools = std::make_unique<ToolRegistry>();
  KEEL_TRY(register_host_tools(*tools, ws.config, ws.workspace, store, nullptr));
  return tools;
}

}  // namespace keel::assembly
