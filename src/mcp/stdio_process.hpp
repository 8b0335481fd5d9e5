// mcp/stdio_process.hpp — starting, signalling and reaping the child process of a stdio MCP
// server. Used by the stdio transport; kept apart so the transport reads as message handling.
//
// Thread-safety: free functions; ChildProcess is a plain record owned by one transport.
#pragma once

#include <sys/types.h>

#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/text/text_util.hpp"
#include "keel/result.hpp"
#include "mcp/stdio_transport.hpp"

namespace keel::mcp::detail {

// A started server: its pid (also its process group id) and this process's ends of its pipes,
// all close-on-exec; stdin_fd, stdout_fd and stderr_fd are non-blocking. The caller closes them.
struct ChildProcess {
  pid_t pid = -1;
  int stdin_fd = -1;   // write end of the child's stdin
  int stdout_fd = -1;  // read end of the child's stdout
  int stderr_fd = -1;  // read end of the child's stderr
};

// Finds `command` the way a shell would: as given when it contains '/', else in each directory of
// `path_value` (colon-separated; an empty entry is the current directory). Relative results are
// taken against `cwd` when it is set (the child runs there). kNotFound with a message naming the
// command when there is no executable file.
Result<std::string> resolve_command(const std::string& command, const std::string& path_value, const std::string& cwd);

// This process's environment with `overrides` added or replacing, as "NAME=value" strings.
std::vector<std::string> child_environment(const std::map<std::string, std::string>& overrides);

// Spawns the server of `spec` in a new process group with default signal dispositions, an empty
// signal mask and pipes for its stdin, stdout and stderr (no other descriptor is inherited).
Result<ChildProcess> spawn_child(const StdioServerSpec& spec);

// The parts joined (messages are built by appending: GCC 12 warns falsely on chained operator+).
using keel::detail::concat;

// How a reaped child ended, in words: "exited with code 3", "was killed by signal 9 (Killed)".
std::string describe_wait_status(int status);

}  // namespace keel::mcp::detail
