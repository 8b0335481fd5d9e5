// The fixtures the official MCP conformance suite's server scenarios read (its tools, resources,
// prompts and completions, as the scenarios' descriptions in @modelcontextprotocol/conformance
// specify them), as a ServerCatalog and ServerTools: the same interfaces keel's own catalog uses.
#pragma once

#include <memory>
#include <vector>

#include "mcp_server/server_catalog.hpp"

namespace keel::test {

std::shared_ptr<const mcp::ServerCatalog> conformance_fixture_catalog();
std::vector<mcp::ServerTool> conformance_fixture_tools();

}  // namespace keel::test
