// `keel skills list|show|import|enable|disable`.
#include <CLI/CLI.hpp>

#include "cli/commands.hpp"

namespace keel::cli {

void add_knowledge_skill_commands(CLI::App& /*skills*/, CommandAction& /*action*/) {}

}  // namespace keel::cli
