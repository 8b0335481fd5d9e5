// keel/mcp.hpp — Model Context Protocol client: connect to MCP servers (a spawned process over
// stdio, Streamable HTTP, or the legacy HTTP+SSE transport), list and call their tools, read their
// resources and prompts, and offer their tools to an agent as `SERVER__tool`.
//
//   keel::McpServerConfig fs;
//   fs.name = "fs";
//   fs.command = "npx";
//   fs.args = {"-y", "@modelcontextprotocol/server-filesystem", "/tmp"};
//   KEEL_ASSIGN_OR_RETURN(auto client, keel::McpClient::connect(fs));
//   KEEL_ASSIGN_OR_RETURN(keel::McpToolResult r, client->call_tool("list_directory", {{"path", "/tmp"}}));
//
// Both eras of the protocol: the stateless revision 2026-07-28 (probed first with server/discover
// over HTTP, and over stdio when McpServerConfig::protocol_version is "auto"; every request then
// carries its version, keel's capabilities and identity in `_meta`, and a result that asks for
// input is answered and retried), and the initialize handshake otherwise: 2025-11-25 (asked for
// first), 2025-06-18, 2025-03-26 and 2024-11-05 are accepted; anything else ends the connection
// with an error naming the version. McpServerConfig::protocol_version can pin one era.
//
// Thread-safety: an McpClient is thread-safe (parallel calls share its connection). McpHub is
// thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "keel/mcp_config.hpp"
#include "keel/result.hpp"
#include "keel/tool_registry.hpp"

namespace keel {

// Parses `.mcp.json` text. `source` names the file in messages. Unknown per-server keys are an
// error (typos); `${VAR}` and `${VAR:-default}` in command, args, env, url and headers are
// expanded from `env`.
Result<std::vector<McpServerConfig>> parse_mcp_json(std::string_view text, std::string_view source,
                                                    const std::map<std::string, std::string>& env);
// The same from an already parsed `mcpServers` object (keel.yaml's, converted to JSON).
Result<std::vector<McpServerConfig>> parse_mcp_servers(const nlohmann::json& servers, std::string_view source,
                                                       const std::map<std::string, std::string>& env);

// A tool as the server describes it.
struct McpToolInfo {
  std::string name;
  std::string title = {};
  std::string description = {};
  nlohmann::json input_schema = nlohmann::json::object();
  nlohmann::json annotations = nlohmann::json::object();  // readOnlyHint, destructiveHint, ...
};

// The result of tools/call.
struct McpToolResult {
  nlohmann::json content = nlohmann::json::array();  // the content blocks, as sent
  nlohmann::json structured = nullptr;               // structuredContent, when sent
  bool is_error = false;                             // the tool reported an error (isError)
  // The content for a model: text blocks joined by newlines; other blocks summarised
  // ("[image image/png, 68 bytes]", "[resource file:///a.txt]", embedded text resources inline);
  // structuredContent as JSON when there is no text.
  std::string text() const;
};

// Server-to-client messages a host may want to see.
struct McpClientHooks {
  std::function<void(std::string_view server, std::string_view line)> on_log;  // stderr, logging, garbage
  std::function<void(std::string_view server, const nlohmann::json& params)> on_progress;
  // notifications/resources/updated: a resource the client subscribed to (resources/subscribe)
  // changed. Called on the connection's reader thread; keep it short.
  std::function<void(std::string_view server, const std::string& uri)> on_resource_updated;
  // elicitation/create: returns the result object ({"action": "accept"|"decline"|"cancel", "content"}).
  // Without one keel accepts when every requested field has a default (using the defaults) and
  // declines otherwise.
  std::function<nlohmann::json(std::string_view server, const nlohmann::json& params)> on_elicitation;
  // sampling/createMessage: the server asks the client's model for a message. Returns the result
  // object ({"role": "assistant", "content": {"type": "text", ...}, "model", "stopReason"}) or an
  // error: PermissionDenied when it was refused (sent as JSON-RPC error -1, the specification's
  // "user rejected"), InvalidArgument for a request keel cannot serve (-32602), anything else as
  // -32603. In the stateless revision an error fails the call that asked for the input. Set: keel
  // declares the sampling capability; unset: it declares none and refuses such requests.
  // Called on the connection's reader thread (handshake revisions) or the calling thread
  // (2026-07-28); it may take as long as a model call.
  std::function<Result<nlohmann::json>(std::string_view server, const nlohmann::json& params)> on_sampling;
  // OAuth (McpServerConfig::oauth): shows `url` (the authorization request) to a person and returns
  // the URL their browser was sent back to (`redirect_uri` with code and state). Without one, only
  // tokens already stored are used, and a server that needs a new one fails with a message naming
  // `keel mcp login`.
  std::function<Result<std::string>(std::string_view server, const std::string& url, const std::string& redirect_uri)>
      on_authorize;
  // A server's OAuth state (client registration, tokens) as JSON: read before the first token is
  // needed, written after each change. Without them the state lives as long as the client.
  std::function<std::optional<nlohmann::json>(std::string_view server)> load_oauth;
  std::function<void(std::string_view server, const nlohmann::json& state)> save_oauth;
};

class McpClient;
namespace mcp {
class Transport;
Result<std::unique_ptr<McpClient>> connect_client(const McpServerConfig& config, std::unique_ptr<Transport> transport,
                                                  McpClientHooks hooks);
}  // namespace mcp

class McpClient {
 public:
  // Starts the transport and settles the era (server/discover, else initialize) within
  // config.startup_timeout_ms.
  // Unavailable (cannot start / connect, died during startup), DeadlineExceeded (no answer in time),
  // FailedPrecondition (unsupported protocol version), Unauthenticated (HTTP 401/403).
  static Result<std::unique_ptr<McpClient>> connect(const McpServerConfig& config, McpClientHooks hooks = {});
  ~McpClient();
  McpClient(const McpClient&) = delete;
  McpClient& operator=(const McpClient&) = delete;

  const std::string& name() const;
  const std::string& protocol_version() const;    // negotiated
  const nlohmann::json& server_info() const;      // {"name", "version", ...}
  const nlohmann::json& server_capabilities() const;
  std::string describe() const;                   // "stdio: cmd args" / "http: URL"
  // False once the connection ended (process exited, session lost); calls then fail with Unavailable.
  bool alive() const;
  // True when the server said its tool list changed since the last list_tools().
  bool tools_changed() const;

  // All pages of tools/list.
  Result<std::vector<McpToolInfo>> list_tools(std::stop_token stop = {});
  // tools/call with the configured call timeout (or `timeout` when non-zero). On timeout or stop
  // the server is sent notifications/cancelled. A result with isError is a value, not an error.
  Result<McpToolResult> call_tool(const std::string& tool, const nlohmann::json& arguments, std::stop_token stop = {},
                                  std::chrono::milliseconds timeout = std::chrono::milliseconds(0));
  Result<nlohmann::json> list_resources(std::stop_token stop = {});  // all pages: [{uri, name, mimeType, ...}]
  Result<nlohmann::json> read_resource(const std::string& uri, std::stop_token stop = {});  // {contents: [...]}
  Result<nlohmann::json> list_prompts(std::stop_token stop = {});  // all pages: [{name, description, arguments}]
  Result<nlohmann::json> get_prompt(const std::string& name, const nlohmann::json& arguments,
                                    std::stop_token stop = {});  // {description, messages}
  Status ping(std::stop_token stop = {});
  // Any request; the result object, or the server's JSON-RPC error as InvalidArgument/NotFound/...
  Result<nlohmann::json> request(const std::string& method, nlohmann::json params, std::stop_token stop = {},
                                 std::chrono::milliseconds timeout = std::chrono::milliseconds(0));

  // Ends the connection (stdio: close stdin, then SIGTERM, then SIGKILL; HTTP: DELETE the session).
  void close();

  class Impl;

 private:
  friend Result<std::unique_ptr<McpClient>> mcp::connect_client(const McpServerConfig&, std::unique_ptr<mcp::Transport>,
                                                                McpClientHooks);
  explicit McpClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Where one configured server stands.
struct McpServerStatus {
  std::string name;
  std::string state;  // "connected", "failed", "disabled", "untrusted", "not started"
  std::string error = {};
  std::string transport = {};  // describe()
  std::string source = {};
  nlohmann::json server_info = nullptr;
  std::vector<McpToolInfo> tools = {};  // allowed tools only
  std::vector<std::string> skipped_tools = {};  // "name: why" for tools that could not be offered
  std::vector<std::string> held_tools = {};     // "name: why" for tools hold_tool kept back
};

struct McpHubOptions {
  McpClientHooks hooks = {};
  int max_restarts = 3;  // a server that died is restarted on next use at most this many times
  // Workspace servers (from .mcp.json or the workspace keel.yaml) start only when this says so;
  // the CLI answers from the store's trusted list. Without it they stay "untrusted".
  std::function<bool(const McpServerConfig&)> is_trusted = {};
  // Asked about each allowed tool whenever a server's tools are listed (at start and after a
  // restart): a reason to keep it back (its definition changed since the user accepted it, the
  // tool lock), or nullopt to offer it. A held tool is not registered and its calls are refused.
  // Called from the connecting threads, several servers at once. Unset: every tool is offered.
  std::function<std::optional<std::string>(const McpServerConfig&, const McpToolInfo&)> hold_tool = {};
};

// The configured servers of one agent: connects them (in parallel), registers their tools as
// SERVER__tool (risk from the tool's annotations: readOnlyHint → low, destructiveHint false →
// medium, otherwise high, as the MCP specification's defaults say), restarts a dead server on
// next use (bounded) and closes them all at the end.
class McpHub {
 public:
  McpHub(std::vector<McpServerConfig> servers, McpHubOptions options = {});
  ~McpHub();
  McpHub(const McpHub&) = delete;
  McpHub& operator=(const McpHub&) = delete;

  // Connects every enabled, trusted server and lists its tools, all in parallel; returns when each
  // has connected or failed (each within its startup timeout). Failures are kept in status().
  void connect_all();
  std::vector<McpServerStatus> status() const;
  // Adds SERVER__tool for every allowed tool of every connected server, and mcp_list_resources /
  // mcp_read_resource when a connected server offers resources. A tool whose schema the registry
  // refuses is skipped and named in status(). Errors only for a duplicate name. `deferred`: the
  // tools are offered to the model only once tool_search finds them (ToolSpec::deferred).
  Status register_tools(ToolRegistry& registry, bool deferred = false);
  // The connected client of `server`, reconnecting a dead one (bounded by max_restarts).
  Result<McpClient*> client(const std::string& server);
  // client(), for a call of `tool`: PermissionDenied when the tool is held back (its definition
  // changed, maybe on a restart mid-run), NotFound when the server no longer offers it.
  Result<McpClient*> tool_client(const std::string& server, const std::string& tool);
  void close_all();

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// The name an MCP tool gets in keel: SERVER__tool, with characters outside [A-Za-z0-9_.-]
// replaced by '_' and cut to 64 characters. Empty when nothing usable is left.
std::string mcp_tool_name(std::string_view server, std::string_view tool);

}  // namespace keel
