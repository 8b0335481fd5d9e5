// mcp/mcp_tool.hpp — an MCP server's tool offered to an agent as SERVER__tool.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "keel/mcp.hpp"
#include "keel/tool.hpp"

namespace keel::mcp {

// The risk MCP's tool annotations imply, with the specification's defaults: readOnlyHint true →
// low; destructiveHint false → medium; anything else (no annotations included) → high.
Risk risk_from_annotations(const nlohmann::json& annotations);

// The keel spec of `tool`: its keel name, description (naming the server), `schema` as the
// parameters, risk from its annotations (read-only when low), the server's call timeout.
ToolSpec spec_for(const McpServerConfig& server, const McpToolInfo& tool, std::string schema);

// A Tool that calls `tool` on `server` through `hub` (which must outlive it). A result with
// isError becomes an error naming the tool, with the server's text. `deferred`: offered to the
// model only once loaded (ToolSpec::deferred).
std::unique_ptr<Tool> make_mcp_tool(McpHub& hub, const McpServerConfig& server, const McpToolInfo& tool,
                                    std::string schema, bool deferred = false);

}  // namespace keel::mcp
