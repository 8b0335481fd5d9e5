#include "runtime/mcp_servers_config.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "keel/mcp.hpp"

namespace keel::detail {

namespace {

// The tool lock is the user's: a workspace file may not turn it off for its servers.
Status check_workspace_servers(const std::vector<McpServerConfig>& servers) {
  for (const McpServerConfig& s : servers) {
    if (s.accept_tool_changes) {
      return Status::InvalidArgument(s.source + ": MCP server \"" + s.name +
                                     "\": accept_tool_changes may be set only in your user config, not by a workspace");
    }
  }
  return Status::Ok();
}

void add_all(std::vector<McpServerConfig>& out, std::vector<McpServerConfig> more, bool from_workspace) {
  for (auto& server : more) {
    server.from_workspace = from_workspace;
    auto same = std::find_if(out.begin(), out.end(), [&](const McpServerConfig& s) { return s.name == server.name; });
    if (same != out.end()) {
      *same = std::move(server);
    } else {
      out.push_back(std::move(server));
    }
  }
}

}  // namespace

Result<std::vector<McpServerConfig>> load_mcp_servers(const ConfigLayer* user_file, const ConfigLayer* workspace_file,
                                                      const std::string& workspace,
                                                      const std::map<std::string, std::string>& env) {
  std::vector<McpServerConfig> out;
  if (user_file && !user_file->mcp_servers.is_null()) {
    KEEL_ASSIGN_OR_RETURN(auto servers, parse_mcp_servers(user_file->mcp_servers, user_file->path, env));
    add_all(out, std::move(servers), false);
  }
  if (workspace_file && !workspace_file->mcp_servers.is_null()) {
    KEEL_ASSIGN_OR_RETURN(auto servers, parse_mcp_servers(workspace_file->mcp_servers, workspace_file->path, env));
    KEEL_TRY(check_workspace_servers(servers));
    add_all(out, std::move(servers), true);
  }
  if (!workspace.empty()) {
    std::string path = (std::filesystem::path(workspace) / ".mcp.json").string();
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::stringstream text;
      text << in.rdbuf();
      if (in.bad()) return Status::InvalidArgument("cannot read " + path + ": " + std::strerror(errno));
      KEEL_ASSIGN_OR_RETURN(auto servers, parse_mcp_json(text.str(), path, env));
      KEEL_TRY(check_workspace_servers(servers));
      add_all(out, std::move(servers), true);
    }
  }
  return out;
}

}  // namespace keel::detail
