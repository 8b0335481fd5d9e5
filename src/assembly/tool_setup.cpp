#include "assembly/tool_setup.hpp"

#include <filesystem>

#include "keel/a2a_tools.hpp"
#include "keel/ask_user.hpp"
#include "keel/builtin_tools.hpp"
#include "keel/data_tools.hpp"
#include "keel/memory_tools.hpp"
#include "keel/todo_tools.hpp"
#include "keel/web_tools.hpp"

namespace keel::assembly {

namespace {

Status register_own_tools(ToolRegistry& tools, const KeelConfig& config, const std::string& workspace, Store* store,
                          std::shared_ptr<UserAsker> asker, std::shared_ptr<TextFileAccess> text_files) {
  BuiltinToolOptions builtin;
  builtin.text_files = std::move(text_files);
  builtin.workspace_root = workspace;
  builtin.enable_shell = config.shell_enabled;
  builtin.shell_timeout_ms = config.shell_timeout_ms;
  builtin.shell_sandbox.mode = config.shell_sandbox;
  builtin.shell_sandbox.network = config.shell_network;
  builtin.shell_sandbox.max_processes = config.shell_max_processes;
  builtin.shell_env = config.shell_env;
  for (const auto& r : config.fs_roots) {
    std::filesystem::path p(r.path);
    if (p.is_relative()) p = std::filesystem::path(workspace) / p;
    FsRoot root;
    root.name = r.name;
    root.path = p.lexically_normal().string();
    root.read_only = r.read_only;
    builtin.extra_roots.push_back(std::move(root));
  }
  KEEL_TRY(register_builtin_tools(tools, builtin));
  KEEL_TRY(register_data_tools(tools, DataToolOptions{}));
  if (config.web_enabled) {
    WebToolOptions web;
    web.allowed = config.web_allowed;
    web.timeout_ms = config.web_timeout_ms;
    KEEL_TRY(register_web_tools(tools, web));
  }
  KEEL_TRY(register_ask_user_tool(tools, std::move(asker)));
  if (!config.a2a_agents.empty()) {
    A2aToolOptions a2a;
    a2a.agents = config.a2a_agents;
    a2a.env = current_environment();
    KEEL_TRY(register_a2a_tools(tools, a2a));
  }
  if (store != nullptr) {
    KEEL_TRY(register_memory_tools(tools, *store, workspace));
    KEEL_TRY(register_todo_tools(tools, *store, workspace));
  }
  return Status::Ok();
}

}  // namespace

Status register_host_tools(ToolRegistry& tools, const KeelConfig& config, const std::string& workspace, Store* store,
                           std::shared_ptr<UserAsker> asker, std::shared_ptr<TextFileAccess> text_files) {
  // keel's own tools: their schemas are compiled at their first call (their tests compile them all).
  tools.defer_schema_compilation(true);
  Status status = register_own_tools(tools, config, workspace, store, std::move(asker), std::move(text_files));
  tools.defer_schema_compilation(false);
  return status;
}

KnowledgeSkillSet load_workspace_knowledge_skills(const KeelConfig& config, const std::string& workspace, Store* store) {
  KnowledgeSkillSet set = load_knowledge_skills(config.skill_dirs);
  if (store == nullptr) return set;
  Result<std::vector<SkillSetting>> settings = store->list_skill_settings(workspace);
  if (!settings.ok()) {
    set.problems.push_back("the workspace's skill settings cannot be read (every skill counts as enabled): " +
                           settings.status().message());
    return set;
  }
  apply_skill_settings(set, *settings);
  return set;
}

}  // namespace keel::assembly
