// Private to the runtime: the MCP servers of a configuration, from both keel config files and the
// workspace's .mcp.json.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "keel/mcp_config.hpp"
#include "keel/result.hpp"
#include "runtime/config_file.hpp"

namespace keel::detail {

// The user file's servers, then the workspace file's, then <workspace>/.mcp.json's; a later
// definition of a name replaces an earlier one. Errors name the file and the server.
Result<std::vector<McpServerConfig>> load_mcp_servers(const ConfigLayer* user_file, const ConfigLayer* workspace_file,
                                                      const std::string& workspace,
                                                      const std::map<std::string, std::string>& env);

}  // namespace keel::detail
