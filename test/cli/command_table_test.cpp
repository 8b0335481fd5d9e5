// The top-level command table: `keel --help` lists every command with its summary, each command
// named on the command line is built in full (its own --help shows its options) while the others
// are only a name and a summary, and a command built with a sibling (sessions and fork, models and
// model) keeps its place in the list.
#include "cli/command_table.hpp"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "support/temp_dir.hpp"

namespace keel::cli {
namespace {

const std::vector<std::string> kTopCommands = {
    "run",       "resume", "chat",  "acp",    "tools", "parse",     "sessions", "fork",  "trace",   "memory",
    "approvals", "mcp",    "hooks", "skills", "serve", "autopilot", "models",   "model", "template"};

// The app main() builds for `args` (without the program name).
struct Built {
  CLI::App app{"keel", "keel"};
  CommandAction action;
  explicit Built(std::vector<std::string> args) {
    args.insert(args.begin(), "keel");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    add_commands(app, action, static_cast<int>(argv.size()), argv.data());
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const CLI::App* sub : app.get_subcommands({})) out.push_back(sub->get_name());
    return out;
  }
  const CLI::App* find(const std::string& name) const {
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == name) return sub;
    }
    return nullptr;
  }
  // Options beyond --help: zero for a command added as name and summary only.
  size_t options(const std::string& name) const { return find(name)->get_options().size() - 1; }
};

TEST(CommandTableTest, OnlyTheNamedCommandIsBuiltInFullAndTheListKeepsItsOrder) {
  for (const std::string& named : kTopCommands) {
    Built built({named, "--help"});
    EXPECT_EQ(built.names(), kTopCommands) << named;
    for (const std::string& other : kTopCommands) {
      const CLI::App* sub = built.find(other);
      ASSERT_NE(sub, nullptr) << other;
      EXPECT_EQ(sub->get_description(), command_summary(other)) << other;
      EXPECT_FALSE(sub->get_description().empty()) << other;
      const bool full = built.options(other) > 0 || !sub->get_subcommands({}).empty();
      const bool sibling = (named == "sessions" && other == "fork") || (named == "fork" && other == "sessions") ||
                           (named == "models" && other == "model") || (named == "model" && other == "models");
      EXPECT_EQ(full, other == named || sibling) << "named " << named << ", looking at " << other;
    }
  }
}

TEST(CommandTableTest, WithNoCommandNamedNoneIsBuiltInFull) {
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--version"}, std::vector<std::string>{},
                                               std::vector<std::string>{"--help"}, std::vector<std::string>{"nope"}}) {
    Built built(args);
    EXPECT_EQ(built.names(), kTopCommands);
    for (const std::string& name : kTopCommands) EXPECT_EQ(built.options(name), 0u) << name;
  }
}

TEST(CommandTableTest, TheExecutableListsEveryCommandAndGivesEachItsOwnHelp) {
  keel::testing::TempDir ws;
  keel::testing::CliOptions opts;
  opts.cwd = ws.path().string();
  const keel::testing::CliRun top = keel::testing::run_cli(KEEL_BINARY, {"--help"}, opts);
  EXPECT_EQ(top.exit_code, 0);
  for (const std::string& name : kTopCommands) {
    EXPECT_NE(top.out.find(name), std::string::npos) << name;
    EXPECT_NE(top.out.find(command_summary(name)), std::string::npos) << name;
    const keel::testing::CliRun own = keel::testing::run_cli(KEEL_BINARY, {name, "--help"}, opts);
    EXPECT_EQ(own.exit_code, 0) << name;
    EXPECT_NE(own.out.find("Usage: keel " + name), std::string::npos) << name << ": " << own.out.substr(0, 300);
  }
}

}  // namespace
}  // namespace keel::cli
