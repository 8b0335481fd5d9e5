// `keel tools list`: the tools an agent gets, with their metadata and postconditions.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "assembly/tool_setup.hpp"
#include "keel/assembly.hpp"
#include "keel/core/postcondition.hpp"

namespace keel::cli {

int tools_list_command(const ToolsListArgs& args) {
  std::string error;
  std::string workspace = resolve_workspace(args.workspace, error);
  if (workspace.empty()) {
    std::fprintf(stderr, "keel: %s\n", error.c_str());
    return kExitUsage;
  }
  ToolRegistry tools;
  KeelConfig config;  // the defaults: every family, no extra roots (the database is not opened)
  // The remote agents of the configuration are tools of their own: listed, described from their cards.
  if (Result<KeelConfig> resolved = assembly::resolve_host_config({}, workspace); resolved.ok()) {
    config.a2a_agents = resolved->a2a_agents;
  } else {
    std::fprintf(stderr, "keel: warning: a2a_agents are not listed: %s\n", resolved.status().message().c_str());
  }
  if (Status s = assembly::register_host_tools(tools, config, workspace, nullptr, nullptr); !s.ok()) {
    std::fprintf(stderr, "keel: %s\n", s.message().c_str());
    return kExitUsage;
  }
  if (args.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& t : tools.specs()) {
      out.push_back({{"name", t.name},
                     {"description", t.description},
                     {"parameters", nlohmann::json::parse(t.parameters_schema, nullptr, false)},
                     {"read_only", t.read_only},
                     {"concurrency_safe", t.concurrency_safe},
                     {"risk", risk_name(t.risk)},
                     {"timeout_ms", t.effective_timeout_ms()},
                     {"cacheable", t.cacheable},
                     {"postconditions", nlohmann::json::array()}});
      for (const auto& p : t.postconditions) out.back()["postconditions"].push_back(postcondition_to_json(p));
    }
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  std::printf("%-14s %-7s %-30s %-9s %s\n", "TOOL", "RISK", "FLAGS", "TIMEOUT", "DESCRIPTION");
  for (const auto& t : tools.specs()) {
    std::string flags;
    if (t.read_only) flags += "read-only ";
    if (t.concurrency_safe) flags += "parallel ";
    if (t.cacheable) flags += "cacheable";
    std::string timeout = std::to_string(t.effective_timeout_ms() / 1000) + " s";
    std::printf("%-14s %-7s %-30s %-9s %s\n", t.name.c_str(), std::string(risk_name(t.risk)).c_str(), flags.c_str(),
                timeout.c_str(), t.description.c_str());
    // One indented line per postcondition, under the tool it belongs to.
    for (const auto& p : t.postconditions) std::printf("%-14s postcondition %s\n", "", describe_postcondition(p).c_str());
  }
  return kExitOk;
}

void add_tools_command(CLI::App& app, CommandAction& action) {
  auto list = std::make_shared<ToolsListArgs>();
  CLI::App* tools = app.add_subcommand("tools", command_summary("tools"));
  tools->require_subcommand(1);
  CLI::App* cmd = tools->add_subcommand("list", "List the built-in tools and their metadata");
  cmd->add_option("--workspace,-w", list->workspace, "Workspace folder (default: current directory)");
  cmd->add_flag("--json", list->json, "Print the tools as JSON, with their parameter schemas");
  on_parsed(cmd, action, list, &tools_list_command);
}

}  // namespace keel::cli
