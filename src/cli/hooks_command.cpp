// `keel hooks list | trust`: the command hooks of the settings files (see the README's Hooks
// section) and trusting the workspace's own, which do not run until trusted.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "assembly/hooks_setup.hpp"
#include "assembly/store_access.hpp"
#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "cli/store_output.hpp"
#include "keel/config.hpp"

namespace keel::cli {
namespace {

struct HooksArgs {
  std::optional<std::string> workspace;
};

int hooks_list_command(const HooksArgs& args) {
  std::string error;
  const std::string workspace = resolve_workspace(args.workspace, error);
  if (workspace.empty()) return report_usage_error(error);
  Result<detail::HookSettings> settings = detail::load_hook_settings(workspace, current_environment());
  if (!settings.ok()) return report_usage_error(settings.status().message());
  for (const std::string& w : settings->warnings) std::fprintf(stderr, "keel: warning: %s\n", w.c_str());
  Result<std::unique_ptr<Store>> store = assembly::open_default_store();
  Store* db = store.ok() ? store->get() : nullptr;
  if (settings->commands.empty()) {
    std::fprintf(stderr, "no hooks in the settings files for %s\n", workspace.c_str());
    return kExitOk;
  }
  std::printf("%-18s  %-12s  %-9s  %-7s  %s\n", "EVENT", "MATCHER", "TRUST", "TIMEOUT", "COMMAND (FILE)");
  for (const detail::HookCommand& h : settings->commands) {
    const char* trust = !h.from_workspace ? "user" : assembly::hook_trusted(h, db, workspace) ? "trusted" : "untrusted";
    std::printf("%-18s  %-12s  %-9s  %5ds  %s (%s)\n", h.event.c_str(), h.matcher.empty() ? "*" : h.matcher.c_str(),
                trust, h.timeout_s, h.command.c_str(), h.source.c_str());
  }
  return kExitOk;
}

int hooks_trust_command(const HooksArgs& args) {
  std::string error;
  const std::string workspace = resolve_workspace(args.workspace, error);
  if (workspace.empty()) return report_usage_error(error);
  Result<detail::HookSettings> settings = detail::load_hook_settings(workspace, current_environment());
  if (!settings.ok()) return report_usage_error(settings.status().message());
  Result<std::unique_ptr<Store>> store = assembly::open_default_store();
  if (!store.ok()) return report_store_error(store.status());
  int trusted = 0;
  for (const detail::HookCommand& h : settings->commands) {
    if (!h.from_workspace || assembly::hook_trusted(h, store->get(), workspace)) continue;
    ApprovalRule rule;
    rule.workspace = workspace;
    rule.tool = assembly::hook_trust_tool(h);
    rule.pattern = assembly::hook_trust_fingerprint(h);
    rule.verdict = ApprovalVerdict::kAllow;
    if (Status added = (*store)->add_approval_rule(rule); !added.ok()) return report_store_error(added);
    std::printf("trusted the %s hook '%s' (%s) for %s\n", h.event.c_str(), h.command.c_str(), h.source.c_str(),
                workspace.c_str());
    ++trusted;
  }
  if (trusted == 0) std::printf("no untrusted workspace hooks for %s\n", workspace.c_str());
  return kExitOk;
}

}  // namespace

void add_hooks_commands(CLI::App& app, CommandAction& action) {
  CLI::App* hooks = app.add_subcommand("hooks", command_summary("hooks"));
  hooks->require_subcommand(1);
  hooks->footer(
      "Hooks are read from $XDG_CONFIG_HOME/keel/settings.json (~/.config/keel), ~/.claude/settings.json and the\n"
      "workspace's .keel/settings.json and .claude/settings.json. The workspace's hooks run only once trusted;\n"
      "`keel approvals rm hook:EVENT --pattern COMMAND` takes trust back.");
  auto args = std::make_shared<HooksArgs>();
  CLI::App* list = hooks->add_subcommand("list", "List the hooks, where each comes from and whether it is trusted");
  list->add_option("--workspace,-w", args->workspace, "Workspace folder (default: current directory)");
  list->callback([&action, args] { action = [args] { return hooks_list_command(*args); }; });
  CLI::App* trust = hooks->add_subcommand("trust", "Trust every hook the workspace's settings files declare now");
  trust->add_option("--workspace,-w", args->workspace, "Workspace folder (default: current directory)");
  trust->callback([&action, args] { action = [args] { return hooks_trust_command(*args); }; });
}

}  // namespace keel::cli
