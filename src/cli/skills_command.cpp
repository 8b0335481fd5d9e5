// `keel skills`: one command family for both kinds of skills; each kind adds its subcommands.
#include <CLI/CLI.hpp>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"

namespace keel::cli {

void add_skills_commands(CLI::App& app, CommandAction& action) {
  CLI::App* skills = app.add_subcommand("skills", command_summary("skills"));
  skills->require_subcommand(1);
  add_knowledge_skill_commands(*skills, action);
  add_executable_skill_commands(*skills, action);
}

}  // namespace keel::cli
