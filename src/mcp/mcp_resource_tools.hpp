// mcp/mcp_resource_tools.hpp — two tools that let an agent browse and read the resources of the
// MCP servers that offer them (servers' tools are registered one by one; resources are not).
#pragma once

#include <string>
#include <vector>

#include "keel/mcp.hpp"

namespace keel::mcp {

// Adds mcp_list_resources and mcp_read_resource over `servers` (names of connected servers whose
// capabilities include resources); nothing when there are none. `hub` must outlive the tools.
Status register_resource_tools(McpHub& hub, const std::vector<std::string>& servers, ToolRegistry& registry);

// "a, b, c".
std::string names_of(const std::vector<std::string>& servers);

}  // namespace keel::mcp
