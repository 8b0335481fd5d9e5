// `keel mcp serve --http HOST:PORT`: the MCP server over Streamable HTTP at /mcp, until SIGINT or
// SIGTERM.
#pragma once

#include <string>

#include "keel/result.hpp"

#include "mcp_server/keel_mcp_handler.hpp"

namespace keel::cli {

// The token keel's HTTP servers require: `given` (--token, KEEL_SERVE_TOKEN), else the one kept in
// $KEEL_HOME/serve-token (made at the first start), else none with `no_auth`. It is also put in
// this process's KEEL_SERVE_TOKEN, so its value counts as a secret: redacted from tool output,
// and kept from children by their clean environment. Call before the agents are assembled and
// before other threads start. `kept_in` names the file when the token came from it.
struct HttpToken {
  std::string token;    // empty: --no-auth
  std::string kept_in;  // $KEEL_HOME/serve-token when it came from there
};
Result<HttpToken> resolve_http_token(const std::string& given, bool no_auth);

// Serves `server` on `host_port` ("127.0.0.1:8765", "[::1]:0", ":8765" for loopback) behind the
// server's access guard (Host, Origin, `token` from resolve_http_token; empty only with
// --no-auth, and only on loopback). Prints "keel mcp: serving http://HOST:PORT/mcp" on stderr once
// listening. Returns the exit code.
int serve_mcp_http(mcp::KeelMcpServer& server, const std::string& host_port, const HttpToken& token);

}  // namespace keel::cli
