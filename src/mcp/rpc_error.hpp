// mcp/rpc_error.hpp — the Status keel's MCP client returns for a server's JSON-RPC error object:
// NotFound for an unknown method (-32601) or resource (-32002), InvalidArgument otherwise, with
// the server, the method, the code and the server's message in the text.
//
// Thread-safety: a pure function.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "keel/result.hpp"

namespace keel::mcp {

Status rpc_error_status(const std::string& server, const std::string& method, const nlohmann::json& error);

}  // namespace keel::mcp
