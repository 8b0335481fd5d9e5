// `keel run`: one task to an answer, in a new session or as the next turn of a stored one.
#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>

#include "cli/agent_setup.hpp"
#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"

namespace keel::cli {

int run_command(const RunArgs& args) {
  std::stop_token stop = install_interrupt_handler();  // first: Ctrl-C during set-up is a clean abort too
  if (args.task.find_first_not_of(" \t\r\n") == std::string::npos) return usage_failure(args.json, "the task is empty");
  if (args.session && args.ephemeral) {
    return usage_failure(args.json, "--session and --ephemeral exclude each other: a session lives in the database");
  }
  AgentFlags flags;
  flags.model = args.model;
  flags.base_url = args.base_url;
  flags.api_key = args.api_key;
  flags.workspace = args.workspace;
  flags.max_rounds = args.max_rounds;
  flags.max_tokens = args.max_tokens;
  flags.max_cost = args.max_cost;
  flags.yes = args.yes;
  flags.approve_mode = args.approve_mode;
  flags.sandbox = args.sandbox;
  flags.json = args.json;
  flags.no_stream = args.no_stream;
  flags.ephemeral = args.ephemeral;
  flags.record = args.record;
  if (args.session && !flags.workspace) flags.workspace = assembly::stored_workspace(*args.session);
  Result<std::unique_ptr<CliAgent>> cli = CliAgent::create(flags);
  if (!cli.ok()) return usage_failure(args.json, cli.status().message());

  Result<RunOutcome> outcome = args.session ? (*cli)->agent().continue_session(*args.session, args.task, stop)
                                            : (*cli)->agent().run(args.task, stop);
  if (!outcome.ok()) {
    bool missing = outcome.status().code() == ErrorCode::kNotFound;
    return (*cli)->fail(missing ? "not_found" : "usage", outcome.status().message(),
                        missing ? kExitNotFound : kExitUsage);
  }
  return exit_code_for(*outcome);
}

void add_run_command(CLI::App& app, CommandAction& action) {
  auto run = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", command_summary("run"));
  cmd->add_option("task", run->task, "What the agent should do")->required();
  cmd->add_option("--model,-m", run->model,
                  "Model: rules, openai/NAME, ollama/NAME, lmstudio/NAME, llamacpp/NAME, vllm/NAME, or any name with --base-url");
  cmd->add_option("--base-url", run->base_url, "OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1");
  cmd->add_option("--api-key", run->api_key, "API key (default: $OPENAI_API_KEY)");
  cmd->add_option("--workspace,-w", run->workspace, "Folder the tools are confined to (default: current directory)");
  cmd->add_option("--max-rounds", run->max_rounds, "Tool rounds before the agent must answer (default 20)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--max-tokens", run->max_tokens, kMaxTokensHelp)->check(CLI::PositiveNumber);
  cmd->add_option("--max-cost", run->max_cost, kMaxCostHelp)->check(CLI::PositiveNumber);
  cmd->add_flag("--yes,-y", run->yes, kYesHelp);
  cmd->add_option("--approve-mode", run->approve_mode, kApproveModeHelp);
  cmd->add_option("--sandbox", run->sandbox, kSandboxHelp);
  cmd->add_flag("--json", run->json, "Print every event as one JSON object per line (see docs/events.md)");
  cmd->add_flag("--no-stream", run->no_stream, "Ask the backend for whole replies instead of a stream");
  cmd->add_option("--session,-s", run->session, "Continue this saved session (see keel sessions list)");
  cmd->add_flag("--ephemeral", run->ephemeral, "Save nothing: no session, messages or trace in the database");
  cmd->add_option("--record", run->record, kRecordHelp);
  on_parsed(cmd, action, run, &run_command);
}

}  // namespace keel::cli
