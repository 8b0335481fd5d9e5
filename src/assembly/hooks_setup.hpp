// The command hooks of the settings files (runtime/hook_settings.hpp) for an agent: read from the
// user's and the workspace's settings, with the workspace's hooks held back until trusted.
//
// Workspace hooks are code from the repository, so they are treated like workspace MCP servers:
// each command runs only once the user trusted it for this workspace, kept in the store as an
// approval rule of the pseudo-tool "hook:EVENT" with the command as its pattern (so
// `keel approvals list|rm` show and revoke it; `keel hooks trust` adds it). A changed command
// needs trusting again. Hooks from the user's own settings are trusted.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "keel/config.hpp"
#include "keel/hooks.hpp"
#include "keel/store/store.hpp"
#include "runtime/command_hooks.hpp"
#include "runtime/hook_settings.hpp"

namespace keel::assembly {

std::string hook_trust_tool(const detail::HookCommand& hook);         // "hook:EVENT"
std::string hook_trust_fingerprint(const detail::HookCommand& hook);  // the command

// True for the user's hooks, and for workspace hooks trusted in `store` for `workspace`.
bool hook_trusted(const detail::HookCommand& hook, Store* store, const std::string& workspace);

// The hooks of the settings files for `workspace` (`env`: HOME, XDG_CONFIG_HOME) as keel::Hooks
// run in `config`'s shell sandbox and environment; nullptr when no hook would run. Each
// untrusted workspace hook, and whatever the files hold that keel leaves out, is reported through
// `notice`, which also gets the hooks' warnings while runs go on (unset: stderr). Errors: an
// unusable settings file, named.
Result<std::shared_ptr<detail::CommandHooks>> make_command_hooks(const KeelConfig& config, const std::string& workspace, Store* store,
                                                  const std::map<std::string, std::string>& env,
                                                  const std::function<void(const std::string&)>& notice);

}  // namespace keel::assembly
