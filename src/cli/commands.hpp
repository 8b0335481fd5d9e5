// The keel executable's commands. Each returns the process exit code:
//   0 answer / success, 2 usage or configuration error, 3 run failed, 4 backend error, 130 aborted.
#pragma once

#include <optional>
#include <string>

namespace keel::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitRunFailed = 3;

struct RunArgs {
  std::string task;
  std::optional<std::string> model, base_url, api_key, workspace;
  std::optional<int> max_rounds;
  bool yes = false;
  bool json = false;
  bool no_stream = false;
};

int run_command(const RunArgs& args);

struct ToolsListArgs {
  std::optional<std::string> workspace;
  bool json = false;
};

int tools_list_command(const ToolsListArgs& args);

struct ParseArgs {
  std::string input = "-";            // file with the model output, or "-" for stdin
  std::string format = "auto";        // auto or a format name
  std::optional<std::string> tools;   // OpenAI tools array file
  bool list_formats = false;
};

// Prints {"format","content","reasoning","tool_calls","repairs","error"}; exit 3 when error is set.
int parse_command(const ParseArgs& args);

// The workspace folder: the flag, else the current directory, made absolute and canonical.
// Empty with a message in `error` when it does not exist or is not a directory.
std::string resolve_workspace(const std::optional<std::string>& flag, std::string& error);

}  // namespace keel::cli
