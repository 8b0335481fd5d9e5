// McpHub: an agent's MCP servers — parallel startup, tool registration with allow/deny lists,
// bounded restarts of servers that died.
#include <algorithm>
#include <map>
#include <mutex>
#include <thread>

#include "keel/mcp.hpp"
#include "mcp/mcp_resource_tools.hpp"
#include "mcp/mcp_tool.hpp"

namespace keel {

using nlohmann::json;

namespace {

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

class McpHub::Impl {
 public:
  struct Entry {
    McpServerConfig config;
    std::mutex mu;  // guards everything below; held while (re)connecting this server
    std::unique_ptr<McpClient> client;
    std::string state = "not started";
    std::string error;
    std::vector<McpToolInfo> tools;  // allowed ones
    std::vector<std::string> skipped;
    std::map<std::string, std::string> held;  // tool -> why hold_tool kept it back
    int restarts = 0;
  };

  Impl(std::vector<McpServerConfig> servers, McpHubOptions options) : options_(std::move(options)) {
    for (auto& s : servers) {
      auto e = std::make_unique<Entry>();
      e->config = std::move(s);
      if (!e->config.enabled) {
        e->state = "disabled";
      } else if (e->config.from_workspace && !(options_.is_trusted && options_.is_trusted(e->config))) {
        e->state = "untrusted";
        e->error = "declared in " + e->config.source + "; run `keel mcp trust " + e->config.name + "` to start it";
      }
      entries_.push_back(std::move(e));
    }
  }

  // Connects `e` and lists its tools; e.mu is held by the caller.
  Status connect_locked(Entry& e) {
    if (e.client) {
      e.client->close();
      e.client.reset();
    }
    Result<std::unique_ptr<McpClient>> client = McpClient::connect(e.config, options_.hooks);
    if (!client.ok()) {
      e.state = "failed";
      e.error = client.status().message();
      return client.status();
    }
    Result<std::vector<McpToolInfo>> tools = (*client)->list_tools();
    if (!tools.ok()) {
      (*client)->close();
      e.state = "failed";
      e.error = tools.status().message();
      return tools.status();
    }
    e.tools.clear();
    e.held.clear();
    for (auto& t : *tools) {
      if (!e.config.allow_tools.empty() && !listed(e.config.allow_tools, t.name)) continue;
      if (listed(e.config.deny_tools, t.name)) continue;
      if (options_.hold_tool) {
        if (std::optional<std::string> why = options_.hold_tool(e.config, t)) {
          e.held[t.name] = std::move(*why);
          continue;
        }
      }
      e.tools.push_back(std::move(t));
    }
    e.client = std::move(*client);
    e.state = "connected";
    e.error.clear();
    return Status::Ok();
  }

  Entry* find(const std::string& name) {
    for (auto& e : entries_) {
      if (e->config.name == name) return e.get();
    }
    return nullptr;
  }

  McpHubOptions options_;
  std::vector<std::unique_ptr<Entry>> entries_;
};

McpHub::McpHub(std::vector<McpServerConfig> servers, McpHubOptions options)
    : impl_(std::make_unique<Impl>(std::move(servers), std::move(options))) {}

McpHub::~McpHub() { close_all(); }

void McpHub::connect_all() {
  std::vector<std::thread> starting;
  for (auto& e : impl_->entries_) {
    if (e->state != "not started") continue;
    Impl::Entry* entry = e.get();
    starting.emplace_back([this, entry] {
      std::lock_guard<std::mutex> lock(entry->mu);
      (void)impl_->connect_locked(*entry);
    });
  }
  for (auto& t : starting) t.join();
}

std::vector<McpServerStatus> McpHub::status() const {
  std::vector<McpServerStatus> out;
  for (const auto& e : impl_->entries_) {
    std::lock_guard<std::mutex> lock(e->mu);
    McpServerStatus s;
    s.name = e->config.name;
    s.state = e->state;
    if (e->state == "connected" && e->client && !e->client->alive()) s.state = "stopped";
    s.error = e->error;
    s.source = e->config.source;
    s.transport = e->client ? e->client->describe()
                            : std::string(mcp_transport_name(e->config.transport)) + ": " +
                                  (e->config.transport == McpTransportKind::kStdio ? e->config.command : e->config.url);
    if (e->client) s.server_info = e->client->server_info();
    s.tools = e->tools;
    s.skipped_tools = e->skipped;
    for (const auto& [tool, why] : e->held) s.held_tools.push_back(tool + ": " + why);
    out.push_back(std::move(s));
  }
  return out;
}

Status McpHub::register_tools(ToolRegistry& registry, bool deferred) {
  std::vector<std::string> with_resources;
  for (auto& e : impl_->entries_) {
    std::lock_guard<std::mutex> lock(e->mu);
    if (e->state != "connected") continue;
    if (e->client && e->client->server_capabilities().contains("resources")) with_resources.push_back(e->config.name);
    e->skipped.clear();
    for (const McpToolInfo& tool : e->tools) {
      std::string name = mcp_tool_name(e->config.name, tool.name);
      if (name.empty()) {
        e->skipped.push_back(tool.name + ": no usable name");
        continue;
      }
      if (registry.find(name) != nullptr) {
        return Status::InvalidArgument("MCP tool " + e->config.name + "/" + tool.name + " would be named " + name +
                                       ", which another tool already has; rename the server in " + e->config.source);
      }
      // The schema as sent; then without "$schema" (a draft keel's validator does not know); then skipped.
      json schema = tool.input_schema.is_object() ? tool.input_schema : json::object();
      if (!schema.contains("type")) schema["type"] = "object";
      Status added = registry.add(mcp::make_mcp_tool(*this, e->config, tool, schema.dump(), deferred));
      if (!added.ok() && schema.contains("$schema")) {
        schema.erase("$schema");
        added = registry.add(mcp::make_mcp_tool(*this, e->config, tool, schema.dump(), deferred));
      }
      if (!added.ok()) e->skipped.push_back(tool.name + ": " + added.message());
    }
  }
  return mcp::register_resource_tools(*this, with_resources, registry);
}

Result<McpClient*> McpHub::client(const std::string& server) {
  Impl::Entry* e = impl_->find(server);
  if (e == nullptr) return Status::NotFound("no MCP server named '" + server + "'");
  std::lock_guard<std::mutex> lock(e->mu);
  if (e->state == "disabled") return Status::FailedPrecondition("MCP server '" + server + "' is disabled");
  if (e->state == "untrusted") return Status::PermissionDenied("MCP server '" + server + "' is not trusted: " + e->error);
  if (e->client && e->client->alive()) return e->client.get();
  if (e->restarts >= impl_->options_.max_restarts) {
    return Status::Unavailable("MCP server '" + server + "' was restarted " + std::to_string(e->restarts) +
                               " times and is down again; keel does not restart it again in this run (last error: " +
                               (e->error.empty() ? std::string("it exited") : e->error) + ")");
  }
  if (e->state != "not started") ++e->restarts;
  KEEL_TRY(impl_->connect_locked(*e));
  return e->client.get();
}

Result<McpClient*> McpHub::tool_client(const std::string& server, const std::string& tool) {
  KEEL_ASSIGN_OR_RETURN(McpClient * c, client(server));
  Impl::Entry* e = impl_->find(server);
  std::lock_guard<std::mutex> lock(e->mu);
  if (auto held = e->held.find(tool); held != e->held.end()) {
    return Status::PermissionDenied("MCP tool " + server + "/" + tool + ": " + held->second + "; it is not called");
  }
  const bool offered =
      std::any_of(e->tools.begin(), e->tools.end(), [&](const McpToolInfo& t) { return t.name == tool; });
  if (!offered) return Status::NotFound("MCP server '" + server + "' no longer offers tool '" + tool + "'");
  return c;
}

void McpHub::close_all() {
  for (auto& e : impl_->entries_) {
    std::lock_guard<std::mutex> lock(e->mu);
    if (e->client) e->client->close();
  }
}

}  // namespace keel
