// The top-level commands of `keel`, in the order `keel --help` lists them, each with its one-line
// summary and the function that adds it in full (options, subcommands, the action it sets).
//
// Building every command's options with CLI11 costs about a millisecond, a fifth of `keel
// --version`. A process runs one command, so add_commands() adds in full only the one the
// arguments name (with any command its function also adds) and every other one as its name and
// summary, which is all `keel --help` and CLI11's errors show of them.
//
// Thread-safety: read-only data and a function for main's thread.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string_view>

#include "cli/commands.hpp"

namespace keel::cli {

// The summary `keel --help` shows for top-level command `name` ("" for an unknown name). The
// command's own function uses it too, so the text is written once.
const char* command_summary(std::string_view name);

// Adds every top-level command to `app`: in full the one `argv` names (its first argument that is
// not an option), the rest as name and summary only. With no command named, or an unknown one,
// all are added as name and summary, and CLI11 reports the usage error as before.
void add_commands(CLI::App& app, CommandAction& action, int argc, char** argv);

// Sets `action` to run `fn` on the arguments when `cmd` is the parsed subcommand.
template <class Args>
void on_parsed(CLI::App* cmd, CommandAction& action, std::shared_ptr<Args> args, int (*fn)(const Args&)) {
  cmd->callback([&action, args, fn]() { action = [args, fn]() { return fn(*args); }; });
}

}  // namespace keel::cli
