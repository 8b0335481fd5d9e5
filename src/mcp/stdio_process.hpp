// mcp/stdio_process.hpp — starting the child process of a stdio MCP server: the server's command
// looked up on PATH, its environment and working directory checked, and the spawn itself done by
// base/process_spawn with the MCP server's wording for every failure. Used by the stdio
// transport; kept apart so the transport reads as message handling.
//
// Thread-safety: free functions; ChildProcess is a plain record owned by one transport.
#pragma once

#include <string>

#include "base/process_spawn.hpp"
#include "core/text/text_util.hpp"
#include "keel/result.hpp"
#include "mcp/stdio_transport.hpp"

namespace keel::mcp::detail {

// A started server: its pid (also its process group id) and this process's ends of its pipes,
// all close-on-exec and non-blocking. The caller closes them.
using ChildProcess = keel::detail::SpawnedProcess;

// Finds `command` on `path_value` (see keel::detail::find_program); kNotFound with a message
// naming the command, and how to fix it, when there is no executable file.
Result<std::string> resolve_command(const std::string& command, const std::string& path_value, const std::string& cwd);

// Spawns the server of `spec` in a new process group with default signal dispositions, an empty
// signal mask and pipes for its stdin, stdout and stderr (no other descriptor is inherited).
Result<ChildProcess> spawn_child(const StdioServerSpec& spec);

// The parts joined (messages are built by appending: GCC 12 warns falsely on chained operator+).
using keel::detail::concat;

// How a reaped child ended, in words: "exited with code 3", "was killed by signal 9 (SIGKILL)".
using keel::detail::describe_wait_status;

}  // namespace keel::mcp::detail
