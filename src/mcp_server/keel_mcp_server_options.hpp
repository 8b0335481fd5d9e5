// The options of keel's own MCP server (`keel mcp serve`, `/mcp` on `keel serve`) from the
// workspace's configuration.
#pragma once

#include <functional>
#include <string>

#include "keel/config.hpp"
#include "keel/result.hpp"
#include "keel/store/store.hpp"
#include "keel/tool_registry.hpp"
#include "mcp_server/keel_mcp_handler.hpp"

namespace keel::mcp {

// What keel serves over MCP (`keel mcp serve`, `/mcp` on `keel serve`): `tools` under the
// workspace's approval policy (its saved rules included; what it would ask a person about is
// refused), and log lines through `log`; its catalog (keel_catalog.hpp): the workspace's files,
// stored sessions and memory notes as resources, its enabled knowledge skills as prompts. InvalidArgument for a policy that does not load. The
// caller adds run_agent.
Result<KeelMcpServerOptions> keel_mcp_server_options(const KeelConfig& config, const std::string& workspace,
                                                          Store* store, const ToolRegistry& tools,
                                                          std::function<void(const std::string&)> log);

}  // namespace keel::mcp
