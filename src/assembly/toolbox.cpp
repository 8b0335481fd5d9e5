// A workspace's tools: built-ins, MCP servers' tools, load_skill and run_skill.
#include <algorithm>

#include "assembly/mcp_setup.hpp"
#include "assembly/skills_setup.hpp"
#include "assembly/tool_setup.hpp"
#include "keel/assembly.hpp"
#include "keel/assembly/secrets.hpp"
#include "keel/executable_skill.hpp"
#include "keel/knowledge_skills.hpp"

namespace keel::assembly {

Toolbox::~Toolbox() = default;

Result<std::unique_ptr<Toolbox>> Toolbox::create(const KeelConfig& config, const std::string& workspace, Store* store,
                                                 LlmClient& skills_llm, const HostOptions& host) {
  std::unique_ptr<Toolbox> box(new Toolbox());
  auto notice = [&host](const std::string& line) {
    if (host.notice) host.notice(line);
  };
  box->registry_ = std::make_unique<ToolRegistry>();
  KEEL_TRY(register_host_tools(*box->registry_, config, workspace, store, host.asker, host.text_files));
  if (config.skills.enabled) {
    KnowledgeSkillSet skills = load_workspace_knowledge_skills(config, workspace, store);
    for (const std::string& problem : skills.problems) notice("warning: " + problem);
    if (std::any_of(skills.skills.begin(), skills.skills.end(), [](const KnowledgeSkill& s) { return s.enabled; })) {
      KEEL_TRY(register_load_skill_tool(*box->registry_, skills.skills));
    }
    box->knowledge_ = std::move(skills.skills);
    // run_skill: the executable skills (the workspace's and the built-in ones). A skill.json that
    // does not load only costs the agent this tool.
    Result<std::vector<ExecutableSkill>> executable = load_executable_skills(config.skill_dirs);
    if (!executable.ok()) {
      notice("warning: run_skill is not offered: " + executable.status().message());
    } else {
      SkillsWorkspace ws;
      ws.workspace = workspace;
      ws.env = current_environment();
      if (auto home = ws.env.find("HOME"); home != ws.env.end()) ws.home = home->second;
      SkillRunnerOptions so;
      so.threads = 2;
      so.rules_model = uses_rules_model(config);
      so.model_factory = make_skill_model_factory(ws);
      so.store = store;
      so.workspace = workspace;
      so.tools = box->registry_.get();
      so.approvals = config.approvals;
      so.redactor = make_redactor(config, ws.env);
      nlohmann::json listed = nlohmann::json::array();
      for (const ExecutableSkill& s : *executable) {
        listed.push_back({{"id", s.manifest.id},
                          {"description", s.manifest.description},
                          {"approval", skill_approval_mode_name(s.manifest.approval_mode)}});
      }
      Result<std::unique_ptr<SkillRunner>> runner = SkillRunner::create(std::move(*executable), skills_llm, so);
      if (!runner.ok()) {
        notice("warning: run_skill is not offered: " + runner.status().message());
      } else {
        box->skills_ = std::move(*runner);
        box->executable_ = std::move(listed);
        KEEL_TRY(box->registry_->add(make_run_skill_tool(*box->skills_)));
      }
    }
  }
  KEEL_ASSIGN_OR_RETURN(box->mcp_, start_mcp_servers(config, workspace, store, *box->registry_, notice, host.asker));
  return box;
}

}  // namespace keel::assembly
