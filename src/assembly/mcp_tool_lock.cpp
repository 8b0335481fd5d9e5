#include "assembly/mcp_tool_lock.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <nlohmann/json.hpp>
#include <utility>

#include "llm/sha256.hpp"

namespace keel::assembly {

namespace {
using ToolJson = nlohmann::json;
}  // namespace

std::string mcp_tool_definition(const McpToolInfo& tool) {
  // nlohmann's objects keep keys sorted, so equal definitions dump to equal text.
  ToolJson d = {{"name", tool.name},
            {"title", tool.title},
            {"description", tool.description},
            {"inputSchema", tool.input_schema},
            {"annotations", tool.annotations}};
  return d.dump(-1, ' ', false, ToolJson::error_handler_t::replace);
}

std::string mcp_tool_digest(std::string_view definition) {
  detail::Sha256 h;
  h.update(definition);
  return h.hex_digest();
}

namespace {

std::string shown(const ToolJson& value) {
  std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  constexpr size_t kMax = 160;
  if (text.size() > kMax) text = text.substr(0, kMax) + "...";
  return ToolJson(text).dump(-1, ' ', false, ToolJson::error_handler_t::replace);
}

}  // namespace

std::string describe_tool_change(const std::string& accepted, const std::string& now) {
  const ToolJson a = ToolJson::parse(accepted, nullptr, false);
  const ToolJson b = ToolJson::parse(now, nullptr, false);
  if (!a.is_object() || !b.is_object()) return "the definition changed";
  std::set<std::string> keys;
  for (auto it = a.begin(); it != a.end(); ++it) keys.insert(it.key());
  for (auto it = b.begin(); it != b.end(); ++it) keys.insert(it.key());
  std::string out;
  for (const std::string& key : keys) {
    const ToolJson before = a.value(key, ToolJson());
    const ToolJson after = b.value(key, ToolJson());
    if (before == after) continue;
    out.append(out.empty() ? "" : "; ");
    if (key == "inputSchema") {
      out.append("input schema changed");
    } else if (before.is_string() && after.is_string()) {
      out.append(key + ": " + shown(before) + " -> " + shown(after));
    } else {
      out.append(key + " changed");
    }
  }
  return out.empty() ? "the definition changed" : out;
}

namespace {

// The locks of each server, read once per hub and kept up to date as tools are recorded.
struct LockState {
  Store* store;
  std::string workspace;
  std::function<void(const std::string&)> notice;
  std::mutex mu;
  std::map<std::string, std::map<std::string, McpToolLock>> by_server;  // server -> tool -> lock
};

std::optional<std::string> check(LockState& s, const McpServerConfig& server, const McpToolInfo& tool) {
  const std::string definition = mcp_tool_definition(tool);
  const std::string digest = mcp_tool_digest(definition);
  std::lock_guard lock(s.mu);
  auto loaded = s.by_server.find(server.name);
  if (loaded == s.by_server.end()) {
    Result<std::vector<McpToolLock>> locks = s.store->list_mcp_tool_locks(s.workspace, server.name);
    if (!locks.ok()) return "its accepted definition could not be read (" + locks.status().message() + ")";
    std::map<std::string, McpToolLock> tools;
    for (McpToolLock& l : *locks) tools[l.tool] = std::move(l);
    loaded = s.by_server.emplace(server.name, std::move(tools)).first;
  }
  std::map<std::string, McpToolLock>& tools = loaded->second;
  auto known = tools.find(tool.name);
  if (known != tools.end() && known->second.digest == digest) return std::nullopt;
  const bool changed = known != tools.end();
  const std::string what = changed ? describe_tool_change(known->second.definition, definition) : "";
  if (changed && !server.accept_tool_changes) {
    return "its definition changed since it was accepted (" + what + "); it is held back until you run `keel mcp accept " +
           server.name + "`";
  }
  McpToolLock l{s.workspace, server.name, tool.name, digest, definition, 0};
  if (Status put = s.store->put_mcp_tool_lock(l); !put.ok()) {
    if (s.notice) s.notice("MCP server '" + server.name + "': the definition of tool '" + tool.name +
                           "' could not be recorded: " + put.message());
  } else {
    tools[tool.name] = std::move(l);
  }
  if (changed && s.notice) {
    s.notice("MCP server '" + server.name + "': tool '" + tool.name + "' changed since it was accepted (" + what +
             "); accepted automatically (accept_tool_changes)");
  }
  return std::nullopt;
}

}  // namespace

McpToolHold mcp_tool_lock(Store* store, std::string workspace, std::function<void(const std::string&)> notice) {
  if (store == nullptr) return {};
  auto state = std::make_shared<LockState>();
  state->store = store;
  state->workspace = std::move(workspace);
  state->notice = std::move(notice);
  return [state](const McpServerConfig& server, const McpToolInfo& tool) { return check(*state, server, tool); };
}

Result<std::vector<std::string>> accept_mcp_tools(Store& store, const std::string& workspace, const std::string& server,
                                                  const std::vector<McpToolInfo>& tools) {
  KEEL_ASSIGN_OR_RETURN(std::vector<McpToolLock> locks, store.list_mcp_tool_locks(workspace, server));
  std::vector<std::string> accepted;
  for (const McpToolInfo& tool : tools) {
    const std::string definition = mcp_tool_definition(tool);
    const std::string digest = mcp_tool_digest(definition);
    bool same = false;
    for (const McpToolLock& l : locks) same = same || (l.tool == tool.name && l.digest == digest);
    if (same) continue;
    KEEL_TRY(store.put_mcp_tool_lock({workspace, server, tool.name, digest, definition, 0}));
    accepted.push_back(tool.name);
  }
  return accepted;
}

}  // namespace keel::assembly
