// The typed MCP requests of McpClient: paginated lists, tools/call, resources, prompts and ping.
#include "keel/mcp.hpp"

namespace keel {

using nlohmann::json;

namespace {

constexpr int kMaxPages = 100;  // a server that keeps returning cursors is cut off here

// Every page of a paginated list method; `key` names the array in each result.
Result<json> list_all(McpClient& client, const std::string& method, const std::string& key, std::stop_token stop) {
  json all = json::array();
  std::string cursor;
  for (int page = 0; page < kMaxPages; ++page) {
    json params = json::object();
    if (!cursor.empty()) params["cursor"] = cursor;
    KEEL_ASSIGN_OR_RETURN(json result, client.request(method, std::move(params), stop));
    auto items = result.find(key);
    if (items == result.end() || !items->is_array()) {
      return Status::InvalidArgument("MCP server '" + client.name() + "' sent a " + method + " result without a \"" +
                                     key + "\" array");
    }
    for (auto& item : *items) all.push_back(std::move(item));
    auto next = result.find("nextCursor");
    if (next == result.end() || !next->is_string() || next->get<std::string>().empty()) return all;
    std::string following = next->get<std::string>();
    if (following == cursor) {
      return Status::InvalidArgument("MCP server '" + client.name() + "' repeated the cursor of " + method);
    }
    cursor = std::move(following);
  }
  return Status::ResourceExhausted("MCP server '" + client.name() + "' sent more than " + std::to_string(kMaxPages) +
                                   " pages of " + method);
}

}  // namespace

Result<std::vector<McpToolInfo>> McpClient::list_tools(std::stop_token stop) {
  KEEL_ASSIGN_OR_RETURN(json tools, list_all(*this, "tools/list", "tools", stop));
  std::vector<McpToolInfo> out;
  for (const json& t : tools) {
    if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) continue;
    McpToolInfo info;
    info.name = t["name"].get<std::string>();
    if (auto v = t.find("title"); v != t.end() && v->is_string()) info.title = v->get<std::string>();
    if (auto v = t.find("description"); v != t.end() && v->is_string()) info.description = v->get<std::string>();
    if (auto v = t.find("inputSchema"); v != t.end() && v->is_object()) info.input_schema = *v;
    if (auto v = t.find("annotations"); v != t.end() && v->is_object()) info.annotations = *v;
    out.push_back(std::move(info));
  }
  return out;
}

Result<McpToolResult> McpClient::call_tool(const std::string& tool, const json& arguments, std::stop_token stop,
                                           std::chrono::milliseconds timeout) {
  json params = {{"name", tool}, {"arguments", arguments.is_null() ? json::object() : arguments}};
  KEEL_ASSIGN_OR_RETURN(json result, request("tools/call", std::move(params), stop, timeout));
  McpToolResult out;
  if (auto c = result.find("content"); c != result.end() && c->is_array()) out.content = *c;
  if (auto s = result.find("structuredContent"); s != result.end()) out.structured = *s;
  if (auto e = result.find("isError"); e != result.end() && e->is_boolean()) out.is_error = e->get<bool>();
  return out;
}

Result<json> McpClient::list_resources(std::stop_token stop) {
  return list_all(*this, "resources/list", "resources", stop);
}

Result<json> McpClient::read_resource(const std::string& uri, std::stop_token stop) {
  return request("resources/read", {{"uri", uri}}, stop);
}

Result<json> McpClient::list_prompts(std::stop_token stop) { return list_all(*this, "prompts/list", "prompts", stop); }

Result<json> McpClient::get_prompt(const std::string& name, const json& arguments, std::stop_token stop) {
  json params = {{"name", name}};
  if (!arguments.is_null()) params["arguments"] = arguments;
  return request("prompts/get", std::move(params), stop);
}

// In the stateless revision, which has no ping, request() sends server/discover instead.
Status McpClient::ping(std::stop_token stop) {
  Result<json> r = request("ping", json::object(), stop);
  return r.ok() ? Status::Ok() : r.status();
}

}  // namespace keel
