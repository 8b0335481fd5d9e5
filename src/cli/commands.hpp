// The keel executable's commands. Each returns the process exit code:
//   0 answer / success, 2 usage or configuration error, 3 run failed, 4 backend error, 130 aborted.
#pragma once

#include <optional>
#include <string>

namespace keel::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 2;

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

// The workspace folder: the flag, else the current directory, made absolute and canonical.
// Empty with a message in `error` when it does not exist or is not a directory.
std::string resolve_workspace(const std::optional<std::string>& flag, std::string& error);

}  // namespace keel::cli
