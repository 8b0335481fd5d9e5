// The MCP tool lock: a server's tools are offered as the user first saw them. The first time keel
// lists a tool of a server in a workspace, its definition (name, title, description, input
// schema, annotations) is recorded in the store with its digest; a later listing whose definition
// differs (a "rug pull": a description that now tells the model to do something else) holds the
// tool back, with what changed, until `keel mcp accept SERVER` records the new one. A server the
// user's own config marks accept_tool_changes gets new definitions recorded and offered, with a
// notice.
//
//   McpHubOptions options;
//   options.hold_tool = mcp_tool_lock(store, workspace, warn);
//
// Without a store nothing is recorded or checked (keel run --ephemeral). A lock that cannot be
// read holds the tool back: keel does not offer what it cannot check.
//
// Thread-safety: the returned function may be called from several threads at once.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "keel/mcp.hpp"
#include "keel/store/store.hpp"

namespace keel::assembly {

using McpToolHold = std::function<std::optional<std::string>(const McpServerConfig&, const McpToolInfo&)>;

// The canonical JSON of `tool`'s definition: what is digested, kept and compared.
std::string mcp_tool_definition(const McpToolInfo& tool);
// sha256 of `definition`, hex.
std::string mcp_tool_digest(std::string_view definition);
// What differs between two definitions, for a person: `description: "old" -> "new"`, `input
// schema changed`, ... joined by "; ".
std::string describe_tool_change(const std::string& accepted, const std::string& now);

// The hub's hold_tool for `workspace` (see above); `notice` hears of definitions accepted
// automatically and of locks that could not be written.
McpToolHold mcp_tool_lock(Store* store, std::string workspace, std::function<void(const std::string&)> notice);

// Records the definitions of `tools` as accepted in `workspace`; returns the names of those that
// were new or changed.
Result<std::vector<std::string>> accept_mcp_tools(Store& store, const std::string& workspace, const std::string& server,
                                                  const std::vector<McpToolInfo>& tools);

}  // namespace keel::assembly
