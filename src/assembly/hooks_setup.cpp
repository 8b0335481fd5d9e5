// Command hooks for an agent, with workspace trust; see hooks_setup.hpp.
#include "assembly/hooks_setup.hpp"
#include "assembly/workspace_trust.hpp"

#include <cstdio>


namespace keel::assembly {

std::string hook_trust_tool(const detail::HookCommand& hook) { return "hook:" + hook.event; }

std::string hook_trust_fingerprint(const detail::HookCommand& hook) { return hook.command; }

bool hook_trusted(const detail::HookCommand& hook, Store* store, const std::string& workspace) {
  if (!hook.from_workspace) return true;
  return workspace_trusts(store, workspace, hook_trust_tool(hook), hook_trust_fingerprint(hook));
}

Result<std::shared_ptr<detail::CommandHooks>> make_command_hooks(const KeelConfig& config, const std::string& workspace, Store* store,
                                                  const std::map<std::string, std::string>& env,
                                                  const std::function<void(const std::string&)>& notice) {
  std::function<void(const std::string&)> say = notice;
  if (!say) say = [](const std::string& line) { std::fprintf(stderr, "keel: %s\n", line.c_str()); };
  KEEL_ASSIGN_OR_RETURN(detail::HookSettings settings, detail::load_hook_settings(workspace, env));
  for (const std::string& w : settings.warnings) say("warning: " + w);
  std::vector<detail::HookCommand> trusted;
  for (detail::HookCommand& h : settings.commands) {
    if (hook_trusted(h, store, workspace)) {
      trusted.push_back(std::move(h));
      continue;
    }
    say("warning: the " + h.event + " hook '" + h.command + "' of " + h.source +
        " comes from the workspace and is not trusted, so it does not run; review it, then run `keel hooks trust`" +
        (store == nullptr ? " (trust needs keel's database, which this run does not open)" : ""));
  }
  if (trusted.empty()) return std::shared_ptr<detail::CommandHooks>();
  detail::CommandHookOptions options;
  options.workspace = workspace;
  SandboxPolicy sandbox;
  sandbox.mode = config.shell_sandbox;
  sandbox.network = config.shell_network;
  sandbox.max_processes = config.shell_max_processes;
  options.sandbox = sandbox;
  options.pass_env = config.shell_env;
  if (config.approvals.override_mode == ApprovalMode::kAuto) options.permission_mode = "bypassPermissions";
  options.warn = [say](const std::string& line) { say("warning: " + line); };
  return std::make_shared<detail::CommandHooks>(std::move(trusted), std::move(options));
}

}  // namespace keel::assembly
