// mcp/stdio_server.hpp — serves one MCP session on a pair of file descriptors (stdin/stdout for
// `keel mcp serve`): newline-delimited JSON-RPC, requests handled on a small worker pool so a ping
// or a cancellation is answered while a tool runs, responses written whole under one lock.
#pragma once

#include <cstddef>

#include "keel/result.hpp"
#include "mcp_server/message_handler.hpp"

namespace keel::mcp {

struct StdioServeOptions {
  int in_fd = 0;
  int out_fd = 1;
  size_t max_message_bytes = 16 * 1024 * 1024;  // a longer line is refused with a JSON-RPC error
  size_t workers = 4;
};

// Serves until the input ends (or the output is closed), then lets the requests in flight finish
// (tools end within their own timeouts). Ok at a clean end of input; Unavailable when the output
// cannot be written.
Status serve_stdio(MessageHandler& handler, const StdioServeOptions& options);

}  // namespace keel::mcp
