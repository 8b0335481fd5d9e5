// `keel resume ID`: finishes a run that was interrupted (a crash, kill -9, Ctrl-C) from the last
// message it committed. ID is the run (r_…) or its session (s_…), whose latest run is resumed.
#include <CLI/CLI.hpp>

#include <memory>

#include "cli/agent_setup.hpp"
#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"

namespace keel::cli {

int resume_command(const ResumeArgs& args) {
  std::stop_token stop = install_interrupt_handler();
  AgentFlags flags;
  flags.model = args.model;
  flags.base_url = args.base_url;
  flags.api_key = args.api_key;
  flags.workspace = args.workspace ? args.workspace : assembly::stored_workspace(args.id);
  flags.yes = args.yes;
  flags.approve_mode = args.approve_mode;
  flags.sandbox = args.sandbox;
  flags.json = args.json;
  flags.no_stream = args.no_stream;
  flags.record = args.record;
  Result<std::unique_ptr<CliAgent>> cli = CliAgent::create(flags);
  if (!cli.ok()) return usage_failure(args.json, cli.status().message());
  CliAgent& c = **cli;

  std::string run_id = args.id;
  if (args.id.rfind("s_", 0) == 0) {
    Result<RunRecord> latest = c.store()->latest_run(args.id);
    if (!latest.ok()) {
      bool missing = latest.status().code() == ErrorCode::kNotFound;
      return c.fail(missing ? "not_found" : "usage", latest.status().message(), missing ? kExitNotFound : kExitUsage);
    }
    run_id = latest->id;
  }
  Result<RunOutcome> outcome = c.agent().resume(run_id, stop);
  if (!outcome.ok()) {
    switch (outcome.status().code()) {
      case ErrorCode::kNotFound:
        return c.fail("not_found", outcome.status().message(), kExitNotFound);
      case ErrorCode::kFailedPrecondition:
        return c.fail("nothing_to_resume", outcome.status().message(), kExitRunFailed);
      default:
        return c.fail("usage", outcome.status().message(), kExitUsage);
    }
  }
  return exit_code_for(*outcome);
}

void add_resume_command(CLI::App& app, CommandAction& action) {
  auto resume = std::make_shared<ResumeArgs>();
  CLI::App* cmd = app.add_subcommand("resume", command_summary("resume"));
  cmd->add_option("id", resume->id, "Run id (r_...) or session id (s_..., its latest run)")->required();
  cmd->add_option("--model,-m", resume->model, "Model, as for keel run");
  cmd->add_option("--base-url", resume->base_url, "OpenAI-compatible base URL");
  cmd->add_option("--api-key", resume->api_key, "API key (default: $OPENAI_API_KEY)");
  cmd->add_option("--workspace,-w", resume->workspace, "Folder the tools are confined to (default: the session's)");
  cmd->add_flag("--yes,-y", resume->yes, kYesHelp);
  cmd->add_option("--approve-mode", resume->approve_mode, kApproveModeHelp);
  cmd->add_option("--sandbox", resume->sandbox, kSandboxHelp);
  cmd->add_flag("--json", resume->json, "Print every event as one JSON object per line");
  cmd->add_flag("--no-stream", resume->no_stream, "Ask the backend for whole replies");
  cmd->add_option("--record", resume->record, kRecordHelp);
  on_parsed(cmd, action, resume, &resume_command);
}

}  // namespace keel::cli
