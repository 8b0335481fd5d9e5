// `keel mcp serve --http HOST:PORT`: the MCP server over Streamable HTTP at /mcp, until SIGINT or
// SIGTERM.
#pragma once

#include <string>

#include "mcp_server/keel_mcp_handler.hpp"

namespace keel::cli {

// True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost).
bool is_loopback(const std::string& host);

// Serves `server` on `host_port` ("127.0.0.1:8765", "[::1]:0", ":8765" for loopback) behind the
// server's access guard (Host, Origin, token). A non-loopback address needs `token`; without one
// and without `no_auth`, the token kept in $KEEL_HOME/serve-token is required. Prints
// "keel mcp: serving http://HOST:PORT/mcp" on stderr once listening. Returns the exit code.
int serve_mcp_http(mcp::KeelMcpServer& server, const std::string& host_port, const std::string& token, bool no_auth);

}  // namespace keel::cli
