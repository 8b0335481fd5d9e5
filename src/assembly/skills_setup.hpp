// What the executable skills of a workspace need, for the agent's run_skill and `keel skills`: the resolved configuration of a workspace, the
// backends (the run's and those skills name), the tools actions may call, and the loaded skills.
//
// Thread-safety: one command at a time.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "keel/config.hpp"
#include "keel/executable_skill.hpp"
#include "keel/result.hpp"
#include "keel/skill_runner.hpp"
#include "keel/store/store.hpp"
#include "keel/tool_registry.hpp"

namespace keel::assembly {

// The model flags of `keel skills run`.
struct SkillModelFlags {
  std::optional<std::string> model, base_url, api_key;
};

// A workspace's configuration and loaded skills.
struct SkillsWorkspace {
  std::string workspace;  // absolute, canonical
  std::map<std::string, std::string> env;
  std::string home;
  KeelConfig config;
  std::vector<ExecutableSkill> skills;
};

// Resolves the workspace (the flag, else the current directory), its configuration with `flags`
// and loads its executable skills. Errors are usage, configuration or skill-loading problems
// (exit 2), already worded for the user.
Result<SkillsWorkspace> open_skills_workspace(const std::optional<std::string>& workspace_flag,
                                              const SkillModelFlags& flags);

// Makes the client of a manifest's `model`, resolved like --model (base URL and key from the
// environment and the config files, not from the run's --base-url).
SkillModelFactory make_skill_model_factory(const SkillsWorkspace& ws);

// The tools actions may call in `ws` (non-interactive: ask_user has nobody to ask).
Result<std::unique_ptr<ToolRegistry>> make_action_tools(const SkillsWorkspace& ws, Store* store);

}  // namespace keel::assembly
