// assembly/mcp_oauth_files.hpp — where keel keeps what an MCP server's OAuth sign-in produced (the
// client registration, access and refresh tokens): one file per server under
// $KEEL_HOME/mcp-oauth/ (next to the database), mode 0600 in a 0700 folder, written atomically.
// A file is keyed by the server's name and URL, so a server renamed or moved starts over.
//
//   McpClientHooks hooks;
//   attach_mcp_oauth_files(hooks);  // load_oauth / save_oauth read and write those files
//
// Thread-safety: free functions; concurrent writers of one file leave one whole version.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "keel/mcp.hpp"
#include "keel/result.hpp"

namespace keel::assembly {

// The file of server `name` at `url` (the folder: empty = $KEEL_HOME/mcp-oauth).
Result<std::filesystem::path> mcp_oauth_file(std::string_view name, std::string_view url,
                                             const std::filesystem::path& folder = {});

// Reads a stored state: nullopt when there is none. A file others may read, or one that is not
// valid JSON, is an error that says what to do.
Result<std::optional<nlohmann::json>> read_mcp_oauth_file(const std::filesystem::path& file);
// Writes the state (0600, via a temporary file and rename).
Status write_mcp_oauth_file(const std::filesystem::path& file, const nlohmann::json& state);

// Sets hooks.load_oauth and hooks.save_oauth to use these files for `servers` (by name → URL);
// problems go to `warn`.
void attach_mcp_oauth_files(McpClientHooks& hooks, const std::vector<McpServerConfig>& servers,
                            std::function<void(const std::string&)> warn);

}  // namespace keel::assembly
