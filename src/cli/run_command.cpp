// `keel run`: one task to an answer, in a new session or as the next turn of a stored one.
#include <optional>
#include <string>

#include "cli/agent_setup.hpp"
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

}  // namespace keel::cli
