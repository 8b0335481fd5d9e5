// The top-level commands and which of them a process builds in full; see command_table.hpp.
#include "cli/command_table.hpp"

#include <CLI/CLI.hpp>
#include <string>

namespace keel::cli {
namespace {

using AddCommand = void (*)(CLI::App&, CommandAction&);

struct TopCommand {
  std::string_view name;
  const char* summary;
  AddCommand add;  // commands that share a function (sessions and fork, models and model) are added together
};

// In the order `keel --help` lists them.
constexpr TopCommand kCommands[] = {
    {"run", "Run an agent on a task until it answers or fails", &add_run_command},
    {"resume", "Finish an interrupted run from its last saved message (ID: run or session)", &add_resume_command},
    {"chat", "Talk to an agent turn by turn in a saved session (/help inside)", &add_chat_command},
    {"acp", "Serve the Agent Client Protocol on stdin/stdout, for editors (each session works in the editor's folder)",
     &add_acp_command},
    {"tools", "Inspect the tools an agent can use", &add_tools_command},
    {"parse", "Show how keel reads tool calls in a model's raw output (JSON)", &add_parse_command},
    {"sessions", "List, show, export and delete stored sessions", &add_session_commands},
    {"fork", "Copy a session (up to a message) into a new one; prints the new session id", &add_session_commands},
    {"trace", "Show the spans of a run as a tree, or export them as OTLP/JSON", &add_trace_command},
    {"memory", "List, search and delete the notes agents keep in long-term memory", &add_memory_commands},
    {"approvals", "List, add and forget the approval decisions remembered for a workspace", &add_approvals_commands},
    {"mcp", "MCP servers: list them, call a tool, trust one, sign in, or serve keel's tools", &add_mcp_commands},
    {"hooks", "Command hooks of the settings files: list them, trust the workspace's", &add_hooks_commands},
    {"skills", "Knowledge skills (SKILL.md) and executable skills (skill.json)", &add_skills_commands},
    {"serve",
     "Serve agents over HTTP: JSON API, live events, OpenAI-compatible /v1, Anthropic /v1/messages, AG-UI at "
     "/agui, MCP at /mcp, web UI",
     &add_serve_command},
    {"autopilot", "Watch sources and act on what they show (observe → plan → act)", &add_autopilot_commands},
    {"models", "List the local GGUF model files", &add_model_commands},
    {"model", "Download a GGUF model file into the models folder", &add_model_commands},
    {"template", "Show what a local model receives from its own chat template", &add_template_commands},
};

}  // namespace

const char* command_summary(std::string_view name) {
  for (const TopCommand& c : kCommands) {
    if (c.name == name) return c.summary;
  }
  return "";
}

void add_commands(CLI::App& app, CommandAction& action, int argc, char** argv) {
  std::string_view named;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] != '-') {
      named = argv[i];
      break;
    }
  }
  AddCommand full = nullptr;
  for (const TopCommand& c : kCommands) {
    if (c.name == named) full = c.add;
  }
  bool added = false;
  for (const TopCommand& c : kCommands) {
    if (full != nullptr && c.add == full) {
      if (!added) full(app, action);  // at the place of the first command it adds
      added = true;
      continue;
    }
    app.add_subcommand(std::string(c.name), c.summary);
  }
}

}  // namespace keel::cli
