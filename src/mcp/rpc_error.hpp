// mcp/rpc_error.hpp — the Status keel's MCP client returns for a server's JSON-RPC error object:
// NotFound for an unknown method (-32601) or resource (-32002), InvalidArgument otherwise, with
// the server, the method, the code and the server's message in the text.
//
// And the other way: the JSON-RPC error object keel's client answers a server's request with when
// it cannot or will not serve it.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "keel/result.hpp"

namespace keel::mcp {

Status rpc_error_status(const std::string& server, const std::string& method, const nlohmann::json& error);

// {"code", "message"} for `why`: PermissionDenied (a person or the policy refused) is -1, the code
// the specification's examples use for a rejected sampling request; InvalidArgument is -32602
// (invalid params); anything else -32603 (internal error).
nlohmann::json rpc_error_object(const Status& why);

}  // namespace keel::mcp
