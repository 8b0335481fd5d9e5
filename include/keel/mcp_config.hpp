// keel/mcp_config.hpp — how one MCP server is configured (`.mcp.json` or keel.yaml `mcpServers`).
// Kept apart from keel/mcp.hpp so the configuration types need no JSON or client headers.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace keel {

enum class McpTransportKind { kStdio, kHttp, kSse };

// "stdio", "http", "sse".
std::string_view mcp_transport_name(McpTransportKind kind);

// One server, as `.mcp.json` (`{"mcpServers": {NAME: {...}}}`) or keel.yaml `mcpServers` describes it.
// OAuth 2.1 for an HTTP server that answers 401 with a Bearer challenge (MCP authorization,
// 2025-11-25): the client keel registers as, and the scopes it asks for. Every field is optional:
// without a client_id keel uses client_metadata_url where the authorization server accepts one,
// else dynamic registration.
struct McpOAuthConfig {
  std::string client_id = {};            // pre-registered at the authorization server
  std::string client_secret = {};        // with client_id, when the server issued one
  std::string client_metadata_url = {};  // an https URL serving this client's metadata document
  std::vector<std::string> scopes = {};  // asked for when neither the challenge nor the metadata names any
  std::string redirect_uri = {};         // empty: `keel mcp login`'s loopback address
  // "authorization_code" (a person signs in; default) or "client_credentials" (keel is the client
  // itself, with client_id and a client_secret or private_key).
  std::string grant = "authorization_code";
  std::string private_key = {};                // PEM: authenticate with a signed JWT (private_key_jwt)
  std::string signing_algorithm = "ES256";     // of private_key: ES256 or RS256
};

struct McpServerConfig {
  std::string name;  // [A-Za-z0-9_-], at most 32 characters; tools appear as NAME__tool
  McpTransportKind transport = McpTransportKind::kStdio;
  // stdio
  std::string command;
  std::vector<std::string> args = {};
  // The server's environment besides the short allowlist of keel's variables (PATH, HOME, LANG,
  // ...; src/base/child_env.hpp): nothing else of keel's environment, so keys pass only when named
  // here, e.g. "GITHUB_TOKEN": "${GITHUB_TOKEN}".
  std::map<std::string, std::string> env = {};
  std::string cwd = {};                         // empty: keel's working directory
  // http, sse
  std::string url = {};
  std::map<std::string, std::string> headers = {};
  McpOAuthConfig oauth = {};  // used only when the server asks for a token (and no Authorization header is set)
  // keel's additions (also accepted in .mcp.json)
  std::vector<std::string> allow_tools = {};  // only these tools (server names); empty: all
  std::vector<std::string> deny_tools = {};   // never these
  // "": MCP 2026-07-28 (stateless) over HTTP when the server offers it (a server/discover probe,
  // the initialize handshake otherwise), the handshake over stdio; "auto": the probe over stdio too
  // (a server that ends its process on it is started again for the handshake); "2026-07-28": only
  // that revision; a handshake version ("2025-11-25"): only the handshake.
  std::string protocol_version = {};
  int64_t startup_timeout_ms = 10000;         // spawn + initialize + first tools/list
  int64_t call_timeout_ms = 60000;            // each request after that
  bool enabled = true;
  // Offer a tool whose definition changed since it was accepted, recording the new one, instead
  // of holding it back (the tool lock). Only the user's own config may set it.
  bool accept_tool_changes = false;
  bool from_workspace = false;  // declared by a workspace file: started only once trusted
  std::string source = {};      // the file it came from, for messages
};

}  // namespace keel
