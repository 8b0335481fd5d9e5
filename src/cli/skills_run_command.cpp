// `keel skills run|proposals|approve|reject|autorun`.
#include <CLI/CLI.hpp>

#include "cli/commands.hpp"

namespace keel::cli {

void add_executable_skill_commands(CLI::App& /*skills*/, CommandAction& /*action*/) {}

}  // namespace keel::cli
