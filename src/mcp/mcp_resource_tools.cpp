// mcp_list_resources and mcp_read_resource: the resources of the connected MCP servers, for agents.
#include "mcp/mcp_resource_tools.hpp"

#include <algorithm>

namespace keel::mcp {

using nlohmann::json;

namespace {

constexpr size_t kMaxText = 100000;  // a resource's text beyond this is cut, with a note

std::string contents_text(const json& contents) {
  std::string out;
  if (!contents.is_array()) return out;
  for (const json& c : contents) {
    if (!c.is_object()) continue;
    if (!out.empty()) out += "\n";
    std::string uri = c.value("uri", "");
    if (c.contains("text") && c["text"].is_string()) {
      std::string text = c["text"].get<std::string>();
      if (text.size() > kMaxText) {
        size_t total = text.size();
        text.resize(kMaxText);
        text += "\n[resource truncated — original size: " + std::to_string(total) + " chars]";
      }
      out += "[" + uri + "]\n" + text;
    } else {
      size_t chars = c.contains("blob") && c["blob"].is_string() ? c["blob"].get_ref<const std::string&>().size() : 0;
      out += "[" + uri + ": binary " + c.value("mimeType", std::string("data")) + ", " + std::to_string(chars / 4 * 3) +
             " bytes, not shown]";
    }
  }
  return out;
}

}  // namespace

std::string names_of(const std::vector<std::string>& servers) {
  std::string out;
  for (const auto& s : servers) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}

Status register_resource_tools(McpHub& hub, const std::vector<std::string>& servers, ToolRegistry& registry) {
  if (servers.empty()) return Status::Ok();
  const std::string names = names_of(servers);
  ToolTraits traits;
  traits.read_only = true;
  traits.timeout_ms = 60000;
  ToolSpec list = make_tool_spec(
      "mcp_list_resources", "List the resources (documents, files, data) that MCP servers offer: " + names + ".",
      R"({"type":"object","properties":{"server":{"type":"string","description":"Only this server"}},"additionalProperties":false})",
      traits);
  KEEL_TRY(registry.add(make_tool(list, [&hub, servers](const json& args, const ToolContext& ctx) -> Result<std::string> {
    std::string only = args.value("server", "");
    json out = json::array();
    for (const auto& name : servers) {
      if (!only.empty() && only != name) continue;
      KEEL_ASSIGN_OR_RETURN(McpClient * client, hub.client(name));
      KEEL_ASSIGN_OR_RETURN(json resources, client->list_resources(ctx.stop));
      for (const json& r : resources) {
        json item = {{"server", name}, {"uri", r.value("uri", "")}, {"name", r.value("name", "")}};
        if (r.contains("mimeType")) item["mimeType"] = r["mimeType"];
        if (r.contains("description")) item["description"] = r["description"];
        out.push_back(std::move(item));
      }
    }
    if (!only.empty() && out.empty() && std::find(servers.begin(), servers.end(), only) == servers.end()) {
      return Status::NotFound("no MCP server named '" + only + "' offers resources; servers: " + names_of(servers));
    }
    return out.dump();
  })));
  ToolSpec read = make_tool_spec(
      "mcp_read_resource", "Read one resource of an MCP server by its URI (see mcp_list_resources).",
      R"({"type":"object","properties":{"server":{"type":"string"},"uri":{"type":"string"}},"required":["server","uri"],"additionalProperties":false})",
      traits);
  return registry.add(make_tool(read, [&hub, servers](const json& args, const ToolContext& ctx) -> Result<std::string> {
    std::string name = args["server"].get<std::string>();
    if (std::find(servers.begin(), servers.end(), name) == servers.end()) {
      return Status::NotFound("no MCP server named '" + name + "' offers resources; servers: " + names_of(servers));
    }
    KEEL_ASSIGN_OR_RETURN(McpClient * client, hub.client(name));
    KEEL_ASSIGN_OR_RETURN(json result, client->read_resource(args["uri"].get<std::string>(), ctx.stop));
    return contents_text(result.value("contents", json::array()));
  }));
}

}  // namespace keel::mcp
