// keel/builtin_tools.hpp — keel's first built-in tools.
//
//   fs_list, fs_read, fs_write, fs_search (RE2 regex), fs_stat — confined to the workspace root:
//     `..` that leaves it, absolute paths outside it and symlinks that lead out are refused.
//     fs_list/fs_read/fs_search/fs_stat are read-only, concurrency-safe, cacheable, risk low;
//     fs_write is risk medium and runs alone. fs_read refuses binary files (a NUL byte in the
//     first 8 KiB); fs_search skips .git, symlinks, binary files and files over 2 MiB.
//   shell — runs `/bin/sh -c` in the workspace (risk high: needs approval), with a timeout and
//     captured, size-limited output. A non-zero exit code is an ok result that reports
//     "[exit code N]" with the output; only a timeout, cancellation or failure to start is an
//     error. The command's process group is killed when it ends or times out.
//   get_datetime — the current date and time (ISO 8601, with time zone); IANA zone names are
//     read from the system time zone database, without changing TZ.
//
// The tools are confined to BuiltinToolOptions::workspace_root (canonicalized when registered);
// they do not look at ToolContext::workspace_root. Outputs are plain text meant for a model.
//
// Thread-safety: register_builtin_tools() is subject to ToolRegistry::add()'s rules; the tools
// themselves may run on any thread.
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

// Registers every built-in tool. InvalidArgument if the workspace root does not exist (nothing
// is registered then); an error from ToolRegistry::add (e.g. a name already taken) is returned
// as is, with the tools before it registered.
Status register_builtin_tools(ToolRegistry& registry, const BuiltinToolOptions& options);

}  // namespace keel
