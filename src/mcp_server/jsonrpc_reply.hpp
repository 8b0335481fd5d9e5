// mcp_server/jsonrpc_reply.hpp — the two shapes of a JSON-RPC 2.0 response keel's MCP server
// sends: a result, or an error with a code and a message a person can act on.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace keel::mcp {

inline constexpr int kRpcInvalidParams = -32602;
inline constexpr int kRpcMethodNotFound = -32601;
inline constexpr int kRpcInternalError = -32603;
inline constexpr int kRpcResourceNotFound = -32002;  // MCP: resources/read of an unknown URI

inline nlohmann::json reply_result(const nlohmann::json& id, nlohmann::json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

inline nlohmann::json reply_error(const nlohmann::json& id, int code, const std::string& message,
                                nlohmann::json data = nullptr) {
  nlohmann::json error = {{"code", code}, {"message", message}};
  if (!data.is_null()) error["data"] = std::move(data);
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}};
}

}  // namespace keel::mcp
