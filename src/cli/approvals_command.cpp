// `keel approvals list|add|rm`: the approval decisions remembered for a workspace ("always" and
// "never" answers on the terminal, or rules added here). They decide after keel.yaml's patterns
// and before the modes; see keel/config.hpp for the whole order.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "cli/store_output.hpp"
#include "keel/config.hpp"

namespace keel::cli {
namespace {

using json = nlohmann::ordered_json;

struct ListArgs {
  std::optional<std::string> workspace;
  bool json = false;
};

struct RuleArgs {
  std::string tool;
  std::string verdict;  // add only: allow | deny
  std::string pattern;
  std::optional<std::string> workspace;
};

constexpr const char* kFooter =
    "Rules apply to calls of TOOL in the workspace; with a pattern (RE2, partial match over the command line for\n"
    "shell, over the canonical JSON arguments for other tools) only to matching calls. A deny rule wins over an\n"
    "allow rule. keel.yaml's deny and allow patterns decide before them, the approval modes after them.\n"
    "Exit codes: 0 ok, 1 no such rule, 2 usage or database error.\n";

std::string key_or_report(const std::optional<std::string>& flag, int& code) {
  std::string error;
  std::string workspace = workspace_key(flag, error);
  code = workspace.empty() ? report_usage_error(error) : kExitOk;
  return workspace;
}

int list_command(const ListArgs& args) {
  int code = 0;
  const std::string workspace = key_or_report(args.workspace, code);
  if (workspace.empty()) return code;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;
  Result<std::vector<ApprovalRule>> rules = store->list_approval_rules(workspace);
  if (!rules.ok()) return report_store_error(rules.status());
  if (args.json) {
    json out = json::array();
    for (const ApprovalRule& r : *rules) {
      out.push_back({{"tool", r.tool},
                     {"verdict", approval_verdict_name(r.verdict)},
                     {"pattern", r.pattern},
                     {"workspace", r.workspace},
                     {"created_ms", r.created_ms}});
    }
    std::printf("%s\n", out.dump(2, ' ', false, json::error_handler_t::replace).c_str());
    return kExitOk;
  }
  if (rules->empty()) {
    std::fprintf(stderr, "no remembered approvals for %s\n", workspace.c_str());
    return kExitOk;
  }
  std::printf("%-24s  %-7s  %-16s  %s\n", "TOOL", "VERDICT", "SAVED", "PATTERN");
  for (const ApprovalRule& r : *rules) {
    std::printf("%-24s  %-7s  %-16s  %s\n", one_line(r.tool, 24).c_str(),
                std::string(approval_verdict_name(r.verdict)).c_str(), local_time(r.created_ms).c_str(),
                r.pattern.empty() ? "(every call)" : one_line(r.pattern, 200).c_str());
  }
  return kExitOk;
}

int add_command(const RuleArgs& args) {
  ApprovalRule rule;
  if (args.verdict == "allow") rule.verdict = ApprovalVerdict::kAllow;
  else if (args.verdict == "deny") rule.verdict = ApprovalVerdict::kDeny;
  else return report_usage_error("the verdict must be allow or deny, got '" + args.verdict + "'");
  if (args.tool.empty()) return report_usage_error("the tool name is empty");
  if (Status s = check_approval_pattern(args.pattern); !s.ok()) return report_usage_error(s.message());
  int code = 0;
  rule.workspace = key_or_report(args.workspace, code);
  if (rule.workspace.empty()) return code;
  rule.tool = args.tool;
  rule.pattern = args.pattern;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;
  if (Status s = store->add_approval_rule(rule); !s.ok()) return report_store_error(s);
  std::printf("%s %s%s in %s\n", args.verdict == "allow" ? "always allowing" : "always denying", rule.tool.c_str(),
              rule.pattern.empty() ? "" : (" calls matching '" + rule.pattern + "'").c_str(), rule.workspace.c_str());
  return kExitOk;
}

int rm_command(const RuleArgs& args) {
  int code = 0;
  const std::string workspace = key_or_report(args.workspace, code);
  if (workspace.empty()) return code;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;
  Status s = store->remove_approval_rule(workspace, args.tool, args.pattern);
  if (s.code() == ErrorCode::kNotFound) {
    return report_store_error(Status::NotFound(
        "no remembered approval for " + args.tool +
        (args.pattern.empty() ? std::string(" without a pattern") : " with pattern '" + args.pattern + "'") + " in " +
        workspace + "; see keel approvals list"));
  }
  if (!s.ok()) return report_store_error(s);
  std::printf("forgot the approval for %s%s in %s\n", args.tool.c_str(),
              args.pattern.empty() ? "" : (" matching '" + args.pattern + "'").c_str(), workspace.c_str());
  return kExitOk;
}

}  // namespace

void add_approvals_commands(CLI::App& app, CommandAction& action) {
  CLI::App* approvals =
      app.add_subcommand("approvals", command_summary("approvals"));
  approvals->require_subcommand(1);
  approvals->footer(kFooter);

  auto list = std::make_shared<ListArgs>();
  CLI::App* list_cmd = approvals->add_subcommand("list", "List the remembered decisions, by tool and pattern");
  list_cmd->add_option("--workspace,-w", list->workspace, "Workspace folder (default: current directory)");
  list_cmd->add_flag("--json", list->json, "Print a JSON array of {tool, verdict, pattern, workspace, created_ms}");
  list_cmd->footer(kFooter);
  list_cmd->callback([&action, list]() { action = [list]() { return list_command(*list); }; });

  auto add = std::make_shared<RuleArgs>();
  CLI::App* add_cmd = approvals->add_subcommand("add", "Always allow or always deny calls of a tool");
  add_cmd->add_option("tool", add->tool, "Tool name, e.g. shell")->required();
  add_cmd->add_option("verdict", add->verdict, "allow or deny")->required();
  add_cmd->add_option("--pattern,-p", add->pattern, "Only calls matching this regular expression");
  add_cmd->add_option("--workspace,-w", add->workspace, "Workspace folder (default: current directory)");
  add_cmd->footer(kFooter);
  add_cmd->callback([&action, add]() { action = [add]() { return add_command(*add); }; });

  auto rm = std::make_shared<RuleArgs>();
  CLI::App* rm_cmd = approvals->add_subcommand("rm", "Forget a remembered decision");
  rm_cmd->add_option("tool", rm->tool, "Tool name, as keel approvals list shows it")->required();
  rm_cmd->add_option("--pattern,-p", rm->pattern, "The rule's pattern (default: the rule without one)");
  rm_cmd->add_option("--workspace,-w", rm->workspace, "Workspace folder (default: current directory)");
  rm_cmd->footer(kFooter);
  rm_cmd->callback([&action, rm]() { action = [rm]() { return rm_command(*rm); }; });
}

}  // namespace keel::cli
