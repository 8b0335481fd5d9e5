// `keel skills proposals|approve|reject|autorun`: the actions executable skills queued for a
// person, and the per-workspace opt-in that lets auto-run-eligible skills act by themselves.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "assembly/skills_setup.hpp"
#include "keel/assembly/secrets.hpp"
#include "cli/store_output.hpp"

namespace keel::cli {
namespace {

using json = nlohmann::ordered_json;

constexpr const char* kProposalsFooter =
    "Skills in approval mode proposal (and auto-run-eligible ones without auto-run) queue their action here; approve\n"
    "runs it through the workspace's approval policy (deny rules still refuse), reject drops it.\n"
    "Exit codes: 0 ok, 1 no such proposal or skill, 2 usage or database error, 3 the approved action failed.\n";

struct ProposalsArgs {
  std::optional<std::string> workspace;
  bool all = false;
  bool json = false;
};

struct DecideArgs {
  int64_t id = 0;
  std::optional<std::string> reason;
};

struct AutorunArgs {
  std::string skill;
  std::string state;  // on | off
  std::optional<std::string> workspace;
};

json parsed_or_text(const std::string& text) {
  json v = json::parse(text, nullptr, false);
  return v.is_discarded() ? json(text) : v;
}

json proposal_json(const SkillProposal& p) {
  json j = {{"id", p.id},
            {"public_id", p.public_id},  // what keel serve's API names it by
            {"skill", p.skill},
            {"status", proposal_status_name(p.status)},
            {"tool", p.tool},
            {"arguments", parsed_or_text(p.arguments)},
            {"summary", p.summary},
            {"output", parsed_or_text(p.output)},
            {"result", p.result},
            {"run_id", p.run_id},
            {"workspace", p.workspace},
            {"created_ms", p.created_ms}};
  j["decided_ms"] = p.decided_ms ? json(*p.decided_ms) : json(nullptr);
  return j;
}

int proposals_command(const ProposalsArgs& args) {
  std::string error;
  const std::string workspace = workspace_key(args.workspace, error);
  if (workspace.empty()) return report_usage_error(error);
  int code = 0;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;
  std::optional<ProposalStatus> filter;
  if (!args.all) filter = ProposalStatus::kPending;
  Result<std::vector<SkillProposal>> list = store->list_skill_proposals(workspace, filter);
  if (!list.ok()) return report_store_error(list.status());
  if (args.json) {
    json out = json::array();
    for (const SkillProposal& p : *list) out.push_back(proposal_json(p));
    std::printf("%s\n", out.dump(2, ' ', false, json::error_handler_t::replace).c_str());
    return kExitOk;
  }
  if (list->empty()) {
    std::fprintf(stderr, "no %sskill proposals for %s\n", args.all ? "" : "pending ", workspace.c_str());
    return kExitOk;
  }
  std::printf("%-6s  %-8s  %-24s  %-16s  %-16s  %s\n", "ID", "STATUS", "SKILL", "TOOL", "CREATED", "SUMMARY");
  for (const SkillProposal& p : *list) {
    std::printf("%-6lld  %-8s  %-24s  %-16s  %-16s  %s\n", static_cast<long long>(p.id),
                std::string(proposal_status_name(p.status)).c_str(), one_line(p.skill, 24).c_str(),
                p.tool.empty() ? "-" : one_line(p.tool, 16).c_str(), local_time(p.created_ms).c_str(),
                one_line(p.summary, 200).c_str());
  }
  return kExitOk;
}

int approve_command(const DecideArgs& args) {
  std::stop_token stop = install_interrupt_handler();
  int code = 0;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;
  Result<SkillProposal> p = store->get_skill_proposal(args.id);
  if (!p.ok()) return report_store_error(p.status());
  std::error_code ec;
  if (!std::filesystem::is_directory(p->workspace, ec)) {
    std::string msg = "the workspace of proposal ";
    msg.append(std::to_string(args.id)).append(", ").append(p->workspace).append(", is not an existing directory");
    return report_usage_error(msg);
  }
  Result<assembly::SkillsWorkspace> ws = assembly::open_skills_workspace(p->workspace, assembly::SkillModelFlags{});
  if (!ws.ok()) return report_usage_error(ws.status().message());
  Result<std::unique_ptr<ToolRegistry>> tools = assembly::make_action_tools(*ws, store.get());
  if (!tools.ok()) return report_usage_error(tools.status().message());
  Result<SkillProposal> done = approve_skill_proposal(*store, args.id, **tools, ws->config.approvals, stop,
                                                    assembly::make_redactor(ws->config, ws->env));
  if (!done.ok()) return report_store_error(done.status());
  const bool executed = done->status == ProposalStatus::kExecuted;
  std::printf("proposal %lld %s: %s\n", static_cast<long long>(done->id), executed ? "executed" : "failed",
              one_line(done->result, 2000).c_str());
  return executed ? kExitOk : kExitRunFailed;
}

int reject_command(const DecideArgs& args) {
  int code = 0;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;
  const std::string reason = args.reason ? *args.reason : std::string("rejected");
  if (Status s = store->decide_skill_proposal(args.id, ProposalStatus::kRejected, reason); !s.ok()) {
    return report_store_error(s);
  }
  std::printf("proposal %lld rejected\n", static_cast<long long>(args.id));
  return kExitOk;
}

int autorun_command(const AutorunArgs& args) {
  if (args.state != "on" && args.state != "off") {
    std::string msg = "autorun takes on or off, got '";
    msg.append(args.state).append("'");
    return report_usage_error(msg);
  }
  Result<assembly::SkillsWorkspace> ws = assembly::open_skills_workspace(args.workspace, assembly::SkillModelFlags{});
  if (!ws.ok()) return report_usage_error(ws.status().message());
  const ExecutableSkill* skill = nullptr;
  for (const ExecutableSkill& s : ws->skills) {
    if (s.manifest.id == args.skill) skill = &s;
  }
  if (skill == nullptr) {
    std::string msg = "no executable skill '";
    msg.append(args.skill).append("' in ").append(ws->workspace);
    return report_store_error(Status::NotFound(msg));
  }
  if (args.state == "on" && skill->manifest.approval_mode != SkillApprovalMode::kAutoRunEligible) {
    std::string msg = "skill '";
    msg.append(args.skill).append("' is ").append(skill_approval_mode_name(skill->manifest.approval_mode));
    msg.append(": only auto-run-eligible skills can run their action by themselves");
    return report_usage_error(msg);
  }
  int code = 0;
  std::unique_ptr<Store> store = open_store_or_report(code);
  if (!store) return code;
  SkillSetting setting;
  setting.workspace = ws->workspace;
  setting.skill = args.skill;
  setting.auto_run = args.state == "on";
  if (Status s = store->set_skill_setting(setting); !s.ok()) return report_store_error(s);
  std::printf("auto-run of %s is %s in %s\n", args.skill.c_str(), args.state.c_str(), ws->workspace.c_str());
  return kExitOk;
}

}  // namespace

void add_skill_proposal_commands(CLI::App& skills, CommandAction& action) {
  auto list = std::make_shared<ProposalsArgs>();
  CLI::App* list_cmd = skills.add_subcommand("proposals", "List the actions skills queued for approval");
  list_cmd->add_flag("--all,-a", list->all, "Also the decided ones (approved, rejected, executed, failed)");
  list_cmd->add_flag("--json", list->json, "Print a JSON array of proposals");
  list_cmd->add_option("--workspace,-w", list->workspace, "Workspace folder (default: current directory)");
  list_cmd->footer(kProposalsFooter);
  list_cmd->callback([&action, list]() { action = [list]() { return proposals_command(*list); }; });

  auto approve = std::make_shared<DecideArgs>();
  CLI::App* approve_cmd = skills.add_subcommand("approve", "Approve a proposal and run its action");
  approve_cmd->add_option("id", approve->id, "Proposal id, as keel skills proposals shows it")->required();
  approve_cmd->footer(kProposalsFooter);
  approve_cmd->callback([&action, approve]() { action = [approve]() { return approve_command(*approve); }; });

  auto reject = std::make_shared<DecideArgs>();
  CLI::App* reject_cmd = skills.add_subcommand("reject", "Reject a proposal; its action never runs");
  reject_cmd->add_option("id", reject->id, "Proposal id")->required();
  reject_cmd->add_option("--reason,-r", reject->reason, "Why (kept with the proposal)");
  reject_cmd->footer(kProposalsFooter);
  reject_cmd->callback([&action, reject]() { action = [reject]() { return reject_command(*reject); }; });

  auto autorun = std::make_shared<AutorunArgs>();
  CLI::App* autorun_cmd =
      skills.add_subcommand("autorun", "Let an auto-run-eligible skill run its action without asking (on|off)");
  autorun_cmd->add_option("id", autorun->skill, "Skill id")->required();
  autorun_cmd->add_option("state", autorun->state, "on or off")->required();
  autorun_cmd->add_option("--workspace,-w", autorun->workspace, "Workspace folder (default: current directory)");
  autorun_cmd->footer(kProposalsFooter);
  autorun_cmd->callback([&action, autorun]() { action = [autorun]() { return autorun_command(*autorun); }; });
}

}  // namespace keel::cli
