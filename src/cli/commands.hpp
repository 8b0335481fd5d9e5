// The keel executable's commands. Each returns the process exit code:
//   0 answer / success, 1 not found (a session, run or note id), 2 usage, configuration or database
//   error, 3 run failed, 4 backend error, 130 aborted.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace keel::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitNotFound = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitRunFailed = 3;

// What a parsed command does; families of commands register themselves on the app and set it.
using CommandAction = std::function<int()>;

// Help of the approval flags that run, resume and chat share.
inline constexpr const char* kYesHelp =
    "Approve every call that would be asked about (deny patterns, tools in mode deny and saved deny rules still "
    "refuse)";
inline constexpr const char* kRecordHelp =
    "Write every model request and reply to FILE (JSON Lines); replay it later with --model replay:FILE";
inline constexpr const char* kSandboxHelp =
    "workspace-write, read-only or off: how shell commands are confined for this run, instead of keel.yaml's "
    "tools.shell.sandbox (default workspace-write: only the workspace writable, no network)";
inline constexpr const char* kMaxTokensHelp =
    "Stop the run once its model calls have used this many tokens (prompt + completion), with a budget guard; "
    "instead of keel.yaml's budget.max_tokens";
inline constexpr const char* kMaxCostHelp =
    "Stop the run once its model calls have cost this much (needs the model's entry in keel.yaml `prices`), "
    "with a budget guard; instead of keel.yaml's budget.max_cost";
inline constexpr const char* kApproveModeHelp =
    "auto, confirm or deny: the approval mode of every tool for this run, instead of keel.yaml's modes and the "
    "tools' risk (deny/allow patterns and saved rules still decide first)";

struct RunArgs {
  std::string task;
  std::optional<std::string> model, base_url, api_key, workspace;
  std::optional<int> max_rounds;
  std::optional<int64_t> max_tokens;
  std::optional<double> max_cost;
  bool yes = false;
  std::optional<std::string> approve_mode;  // auto | confirm | deny
  std::optional<std::string> sandbox;       // workspace-write | read-only | off
  bool json = false;
  bool no_stream = false;
  std::optional<std::string> session;  // continue this stored session
  bool ephemeral = false;              // keep nothing in the database
  std::optional<std::string> record;   // --record FILE: write the model exchanges to this cassette
};

int run_command(const RunArgs& args);
// `keel run TASK`.
void add_run_command(CLI::App& app, CommandAction& action);

// `keel resume ID`: finishes an interrupted run (ID: a run, or a session whose latest run it is).
struct ResumeArgs {
  std::string id;
  std::optional<std::string> model, base_url, api_key, workspace;
  bool yes = false;
  std::optional<std::string> approve_mode;  // auto | confirm | deny
  std::optional<std::string> sandbox;       // workspace-write | read-only | off
  bool json = false;
  bool no_stream = false;
  std::optional<std::string> record;  // --record FILE
};

int resume_command(const ResumeArgs& args);
// `keel resume ID`.
void add_resume_command(CLI::App& app, CommandAction& action);

// `keel sessions list|show|export|rm` and `keel fork ID`.
void add_session_commands(CLI::App& app, CommandAction& action);
// `keel trace ID [--otlp]`.
void add_trace_command(CLI::App& app, CommandAction& action);
// `keel memory list|search|rm`.
void add_memory_commands(CLI::App& app, CommandAction& action);
// `keel chat`: a REPL on a persistent session.
void add_chat_command(CLI::App& app, CommandAction& action);
// `keel acp`: the Agent Client Protocol on stdin/stdout, for editors (acp_command.cpp).
void add_acp_command(CLI::App& app, CommandAction& action);
// `keel approvals list|add|rm`: the decisions remembered for a workspace.
void add_approvals_commands(CLI::App& app, CommandAction& action);
// `keel mcp list|call|trust|serve`.
void add_mcp_commands(CLI::App& app, CommandAction& action);
// `keel hooks list|trust`: the settings files' command hooks (hooks_command.cpp).
void add_hooks_commands(CLI::App& app, CommandAction& action);
// `keel skills ...`: knowledge skills (list, show, import, enable, disable) and executable skills
// (run, proposals, approve, reject, autorun).
void add_skills_commands(CLI::App& app, CommandAction& action);
// The knowledge-skill subcommands of `keel skills` (skills_knowledge_command.cpp).
void add_knowledge_skill_commands(CLI::App& skills, CommandAction& action);
// The executable-skill subcommands of `keel skills` (skills_run_command.cpp).
void add_executable_skill_commands(CLI::App& skills, CommandAction& action);
// `keel mcp serve` (registered by add_mcp_commands on the `mcp` command).
void add_mcp_serve_command(CLI::App& mcp, CommandAction& action);
// `keel serve` (serve_command.cpp).
void add_serve_command(CLI::App& app, CommandAction& action);
// `keel skills proposals|approve|reject|autorun` (skills_proposals_command.cpp).
void add_skill_proposal_commands(CLI::App& skills, CommandAction& action);
// `keel autopilot run|status|observations|retry` (autopilot_command.cpp).
void add_autopilot_commands(CLI::App& app, CommandAction& action);
// `keel models list` and `keel model pull` (models_command.cpp).
void add_model_commands(CLI::App& app, CommandAction& action);
// `keel template render|inspect` (template_command.cpp).
void add_template_commands(CLI::App& app, CommandAction& action);

struct ToolsListArgs {
  std::optional<std::string> workspace;
  bool json = false;
};

int tools_list_command(const ToolsListArgs& args);
// `keel tools list`.
void add_tools_command(CLI::App& app, CommandAction& action);

struct ParseArgs {
  std::string input = "-";            // file with the model output, or "-" for stdin
  std::string format = "auto";        // auto or a format name
  std::optional<std::string> tools;   // OpenAI tools array file
  bool list_formats = false;
};

// Prints {"format","content","reasoning","tool_calls","repairs","error"}; exit 3 when error is set.
int parse_command(const ParseArgs& args);
// `keel parse [FILE|-]`.
void add_parse_command(CLI::App& app, CommandAction& action);

// The workspace folder (keel::assembly::resolve_workspace); empty with the message in `error`
// when it does not exist or is not a directory.
std::string resolve_workspace(const std::optional<std::string>& flag, std::string& error);

}  // namespace keel::cli
