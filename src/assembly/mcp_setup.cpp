#include "assembly/mcp_setup.hpp"

#include "assembly/mcp_elicitation.hpp"
#include "assembly/mcp_oauth_files.hpp"
#include "assembly/mcp_sampling.hpp"
#include "assembly/mcp_tool_lock.hpp"
#include "assembly/workspace_trust.hpp"
#include "keel/assembly.hpp"

#include "keel/core/deferred_tools.hpp"
#include "keel/core/token_counter.hpp"


namespace keel::assembly {

std::string mcp_trust_tool(const McpServerConfig& server) { return "mcp-server:" + server.name; }

std::string mcp_trust_fingerprint(const McpServerConfig& server) {
  std::string out(mcp_transport_name(server.transport));
  out += ": ";
  if (server.transport == McpTransportKind::kStdio) {
    out += server.command;
    for (const auto& a : server.args) {
      out.push_back(' ');
      out += a;
    }
  } else {
    out += server.url;
  }
  return out;
}

bool defer_mcp_tools(const std::vector<McpServerStatus>& servers, int64_t above_tokens, const ToolRegistry& tools) {
  if (tools.find(kToolSearchName) == nullptr) return false;  // nothing could load them
  return above_tokens <= 0 || mcp_tool_tokens(servers) > static_cast<size_t>(above_tokens);
}

size_t mcp_tool_tokens(const std::vector<McpServerStatus>& servers) {
  const EstimatingTokenCounter counter;
  size_t total = 0;
  for (const McpServerStatus& s : servers) {
    for (const McpToolInfo& t : s.tools) {
      ToolSpec spec;
      spec.name = mcp_tool_name(s.name, t.name);
      spec.description = t.description;
      spec.parameters_schema = t.input_schema.dump();
      total += counter.count_tool(spec);
    }
  }
  return total;
}

bool mcp_server_trusted(const McpServerConfig& server, Store* store, const std::string& workspace) {
  if (!server.from_workspace) return true;
  return workspace_trusts(store, workspace, mcp_trust_tool(server), mcp_trust_fingerprint(server));
}

std::unique_ptr<McpHub> make_mcp_hub(const KeelConfig& config, const std::string& workspace, Store* store,
                                     std::function<void(const std::string&)> notice,
                                     std::function<void(std::string_view, const std::string&)> on_resource_updated,
                                     std::shared_ptr<UserAsker> asker) {
  McpHubOptions options;
  options.hooks.on_resource_updated = std::move(on_resource_updated);
  options.hooks.on_elicitation = elicitation_through_asker(asker);
  if (!uses_rules_model(config)) {  // the rules model has nothing to offer a server that asks for text
    SamplingSetup sampling;
    sampling.approvals = config.approvals;
    sampling.store = store;
    sampling.workspace = workspace;
    sampling.asker = std::move(asker);
    sampling.make_model = [config] { return make_backend(config); };
    options.hooks.on_sampling = sampling_through_backend(std::move(sampling));
  }
  options.is_trusted = [store, workspace](const McpServerConfig& s) { return mcp_server_trusted(s, store, workspace); };
  attach_mcp_oauth_files(options.hooks, config.mcp_servers, notice);
  options.hold_tool = mcp_tool_lock(store, workspace, std::move(notice));
  return std::make_unique<McpHub>(config.mcp_servers, std::move(options));
}

Result<std::unique_ptr<McpHub>> start_mcp_servers(const KeelConfig& config, const std::string& workspace, Store* store,
                                                  ToolRegistry& tools,
                                                  const std::function<void(const std::string&)>& warn,
                                                  std::shared_ptr<UserAsker> asker) {
  if (config.mcp_servers.empty()) return std::unique_ptr<McpHub>();
  std::unique_ptr<McpHub> hub = make_mcp_hub(config, workspace, store, warn, {}, std::move(asker));
  hub->connect_all();
  KEEL_TRY(hub->register_tools(tools, defer_mcp_tools(hub->status(), config.mcp_defer_above_tokens, tools)));
  for (const McpServerStatus& s : hub->status()) {
    if (s.state == "failed") warn("MCP server '" + s.name + "' did not start: " + s.error);
    if (s.state == "untrusted") warn("MCP server '" + s.name + "' is " + s.error);
    for (const std::string& skipped : s.skipped_tools) warn("MCP server '" + s.name + "': tool " + skipped);
    for (const std::string& held : s.held_tools) warn("MCP server '" + s.name + "': tool " + held);
  }
  return hub;
}

}  // namespace keel::assembly
