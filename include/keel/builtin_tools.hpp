// keel/builtin_tools.hpp — keel's first built-in tools.
//
//   fs_list, fs_read, fs_write, fs_search (RE2 regex), fs_stat — confined to the workspace root:
//     `..` that leaves it, absolute paths outside it and symlinks that lead out are refused.
//   shell — runs `/bin/sh -c` in the workspace (risk high: needs approval), with a timeout and
//     captured, size-limited output.
//   get_datetime — the current date and time (ISO 8601, with time zone).
#pragma once

#include <cstddef>
#include <string>

#include "keel/result.hpp"
#include "keel/tool_registry.hpp"

namespace keel {

struct BuiltinToolOptions {
  std::string workspace_root;           // directory the fs tools and shell are confined to
  bool enable_shell = true;             // register the shell tool
  int shell_timeout_ms = 60000;         // shell per-call timeout
  size_t max_output_bytes = 64 * 1024;  // output cap for shell and fs_read; longer is cut with a note
  size_t max_write_bytes = 4 * 1024 * 1024;  // fs_write refuses larger contents
  size_t max_search_matches = 200;      // fs_search stops after this many matching lines
};

// Registers every built-in tool. InvalidArgument if the workspace root does not exist.
Status register_builtin_tools(ToolRegistry& registry, const BuiltinToolOptions& options);

}  // namespace keel
