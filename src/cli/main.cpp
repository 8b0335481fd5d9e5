// The keel command line: parse arguments, dispatch to a command, return its exit code.
#include <CLI/CLI.hpp>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"

int main(int argc, char** argv) {
  using namespace keel::cli;
  CLI::App app{"keel — a correctness-first LLM agent runtime", "keel"};
  app.set_version_flag("--version", "keel " KEEL_VERSION);
  app.require_subcommand(1);
  CommandAction action;
  add_commands(app, action, argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  return action ? action() : kExitUsage;
}
