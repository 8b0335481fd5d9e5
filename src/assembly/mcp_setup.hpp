// The CLI's MCP servers: which workspace servers the user trusted (kept in the store as approval
// rules of the pseudo-tool "mcp-server:NAME", so `keel approvals list|rm` show and revoke them),
// and a started hub whose tools are registered for an agent.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "keel/ask_user.hpp"
#include "keel/config.hpp"
#include "keel/mcp.hpp"
#include "keel/store/store.hpp"
#include "keel/tool_registry.hpp"

namespace keel::assembly {

// What the user trusts when they trust a workspace server: its name and how it is launched, so a
// changed command or URL needs trusting again.
std::string mcp_trust_tool(const McpServerConfig& server);   // "mcp-server:NAME"
std::string mcp_trust_fingerprint(const McpServerConfig& server);  // "stdio: cmd args" / "http: URL"

// True for user-configured servers, and for workspace servers trusted in `store` for `workspace`.
bool mcp_server_trusted(const McpServerConfig& server, Store* store, const std::string& workspace);

// Starts the configured servers (in parallel, each within its startup timeout), registers their
// tools in `tools`, and reports through `warn` each server that could not start and each tool
// held back by the tool lock. nullptr when
// no server is configured. Errors only for a tool name clash.
// A server's elicitation (a question for the user) goes to `asker`, the run's ask_user channel;
// without one keel answers from the schema's defaults or declines.
Result<std::unique_ptr<McpHub>> start_mcp_servers(const KeelConfig& config, const std::string& workspace, Store* store,
                                                  ToolRegistry& tools,
                                                  const std::function<void(const std::string&)>& warn,
                                                  std::shared_ptr<UserAsker> asker = nullptr);

// The estimated tokens of the connected servers' tool definitions, as a model request carries them.
size_t mcp_tool_tokens(const std::vector<McpServerStatus>& servers);
// Whether the servers' tools are deferred (offered once tool_search finds them): their definitions
// come to more than `above_tokens` (0: always) and `tools` has tool_search to find them.
bool defer_mcp_tools(const std::vector<McpServerStatus>& servers, int64_t above_tokens, const ToolRegistry& tools);

// A hub for the configured servers with the store's trust and tool lock (mcp_tool_lock.hpp; not
// connected yet). `notice` hears of tool definitions accepted automatically.
// `on_resource_updated` hears of subscribed resources that changed (McpClientHooks); a server's
// elicitation goes to `asker` when there is one (mcp_elicitation.hpp).
std::unique_ptr<McpHub> make_mcp_hub(const KeelConfig& config, const std::string& workspace, Store* store,
                                     std::function<void(const std::string&)> notice = {},
                                     std::function<void(std::string_view, const std::string&)> on_resource_updated = {},
                                     std::shared_ptr<UserAsker> asker = nullptr);

}  // namespace keel::assembly
