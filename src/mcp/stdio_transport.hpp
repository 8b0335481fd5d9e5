// mcp/stdio_transport.hpp — the MCP stdio transport: keel spawns the server as a child process
// and exchanges newline-delimited JSON-RPC messages over its stdin and stdout; its stderr is
// logging (spec: modelcontextprotocol.io, basic/transports, revision 2025-06-18).
//
//   StdioServerSpec spec;
//   spec.command = "npx";
//   spec.args = {"-y", "@modelcontextprotocol/server-filesystem", "/tmp"};
//   auto transport = keel::mcp::make_stdio_transport(std::move(spec));
//   KEEL_TRY(transport->start(callbacks, std::chrono::seconds(5)));
//   KEEL_TRY(transport->send(request, SendOptions{}));   // the response comes through on_message
//   transport->close(std::chrono::seconds(2));
//
// Behaviour beyond the Transport contract:
// - start(): the command is looked up on PATH when it has no '/' (the PATH of `env` when it sets
//   one, else this process's); kNotFound "cannot start MCP server: 'x' not found on PATH" when it is
//   not there, kNotFound for a missing working directory, kUnavailable when the system refuses
//   (no pipes, no process). The child runs in its own process group with default signal
//   dispositions and an empty signal mask; it inherits no descriptor but its stdin/stdout/stderr.
//   Spawning is synchronous (it returns once the program is executing), so the timeout has nothing
//   to bound here; the client times the initialize handshake itself.
// - Reading: one background thread per transport reads stdout and stderr. Each stdout line is
//   parsed as JSON: an object goes to on_message, an array element by element, an empty line is
//   ignored, anything else goes to on_garbage. A line longer than max_message_bytes is discarded as
//   it streams (never held whole) and reported once through on_garbage. Each stderr line goes to
//   on_log (cut at 4 KiB); the last lines are kept for the on_closed message.
// - The end: when the child exits or closes its stdout, on_closed gets kUnavailable "MCP server
//   'cmd args' exited with code N" (or "was killed by signal S"), with "; last stderr: ..." when it
//   wrote any. The child is always reaped; helpers it left in its process group get SIGTERM then.
// - send(): writes one line, at most options.timeout and until options.stop; kDeadlineExceeded /
//   kCancelled "MCP server ... is not reading its input", kUnavailable once the server is gone. A
//   write to a dead server never raises SIGPIPE in this process.
// - close(grace): closes the child's stdin, waits up to `grace` for it to exit, then sends SIGTERM
//   to its process group and SIGKILL 500 ms later. When close() returns no callback is running or
//   will run. It may be called from a callback (it then does not wait for the reading thread,
//   which ends when the callback returns); the destructor calls it with a 1 s grace.
//
// Thread-safety: as Transport says: send() from any number of threads at once (each message is
// written whole, never interleaved), close() from any thread. The transport must not be destroyed
// from inside one of its callbacks.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mcp/transport.hpp"

namespace keel::mcp {

// How to start one stdio MCP server.
struct StdioServerSpec {
  std::string command;                          // program; looked up on PATH when it has no '/'
  std::vector<std::string> args;                // arguments after the program name
  std::map<std::string, std::string> env;       // added to the clean environment (base/child_env.hpp)
  std::string cwd;                              // working directory; empty: this process's
  size_t max_message_bytes = 16 * 1024 * 1024;  // a longer stdout line is dropped and reported
};

// Makes an unstarted transport for `spec`; start() spawns the server.
std::unique_ptr<Transport> make_stdio_transport(StdioServerSpec spec);

}  // namespace keel::mcp
