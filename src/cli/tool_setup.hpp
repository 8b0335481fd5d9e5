// The tools a CLI agent gets, from the configuration: one place for `keel run/chat/resume` and
// `keel tools list`, so the list shows what an agent can call.
#pragma once

#include <memory>
#include <string>


#include "keel/ask_user.hpp"
#include "keel/config.hpp"
#include "keel/knowledge_skills.hpp"
#include "keel/result.hpp"
#include "keel/store/store.hpp"
#include "keel/tool_registry.hpp"

namespace keel::cli {

// Registers the fs, shell, datetime, data, script and web tools, ask_user (answered by `asker`
// when given, else on the terminal when there is one, unless `interactive` is false) and, with a store, the memory and todo
// tools. Relative fs roots are taken from the workspace. spawn_agent is added by the agent setup
// (it needs the backend).
Status register_cli_tools(ToolRegistry& tools, const KeelConfig& config, const std::string& workspace, Store* store,
                          bool interactive = true, std::shared_ptr<UserAsker> asker = nullptr);

// The knowledge skills of config.skill_dirs with the enable/disable overrides `store` keeps for
// `workspace` (nullptr: none). Problems (a skill that does not load, overrides that cannot be
// read) are in the set's `problems`, for the caller to print as warnings. Loads whatever
// config.skills.enabled says: the agent setup checks it, `keel skills` commands do not.
KnowledgeSkillSet load_cli_knowledge_skills(const KeelConfig& config, const std::string& workspace, Store* store);

}  // namespace keel::cli
