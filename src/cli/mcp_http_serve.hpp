// `keel mcp serve --http HOST:PORT`: the MCP server over Streamable HTTP at /mcp, until SIGINT or
// SIGTERM.
#pragma once

#include <string>

#include "mcp_server/keel_mcp_handler.hpp"

namespace keel::cli {

// Serves `server` on `host_port` ("127.0.0.1:8765", "[::1]:0", ":8765" for loopback). A non-loopback
// address needs a token. Prints "keel mcp: serving http://HOST:PORT/mcp" on stderr once listening.
// Returns the exit code.
// True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost).
bool is_loopback(const std::string& host);

int serve_mcp_http(mcp::KeelMcpServer& server, const std::string& host_port, const std::string& token);

}  // namespace keel::cli
