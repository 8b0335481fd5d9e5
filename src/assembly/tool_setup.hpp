// The built-in tools an agent gets from the configuration: one place for every host and for
// `keel tools list`, so the list shows what an agent can call.
#pragma once

#include <memory>
#include <string>


#include "keel/ask_user.hpp"
#include "keel/builtin_tools.hpp"
#include "keel/config.hpp"
#include "keel/knowledge_skills.hpp"
#include "keel/result.hpp"
#include "keel/store/store.hpp"
#include "keel/tool_registry.hpp"

namespace keel::assembly {

// Registers the fs, shell, datetime, data, script and web tools, ask_user (answered by `asker`;
// nullptr: nobody, and the tool says so), a2a_NAME for each of config.a2a_agents (their cards are
// read now, briefly) and, with a store, the memory and todo tools. Relative
// fs roots are taken from the workspace. spawn_agent is added by the assembled agent (it needs the
// backend and the host's approver).
// `text_files`: an editor serving fs_read and fs_write (nullptr: the disk).
Status register_host_tools(ToolRegistry& tools, const KeelConfig& config, const std::string& workspace, Store* store,
                           std::shared_ptr<UserAsker> asker, std::shared_ptr<TextFileAccess> text_files = nullptr);

// The knowledge skills of config.skill_dirs with the enable/disable overrides `store` keeps for
// `workspace` (nullptr: none). Problems (a skill that does not load, overrides that cannot be
// read) are in the set's `problems`, for the caller to print as warnings. Loads whatever
// config.skills.enabled says: the agent setup checks it, `keel skills` commands do not.
KnowledgeSkillSet load_workspace_knowledge_skills(const KeelConfig& config, const std::string& workspace, Store* store);

}  // namespace keel::assembly
