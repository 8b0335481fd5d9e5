// JSON-RPC errors as Status values; see rpc_error.hpp.
#include "mcp/rpc_error.hpp"

namespace keel::mcp {

Status rpc_error_status(const std::string& server, const std::string& method, const nlohmann::json& error) {
  int64_t code = 0;
  std::string message = "(no message)";
  if (error.is_object()) {
    if (auto c = error.find("code"); c != error.end() && c->is_number_integer()) code = c->get<int64_t>();
    if (auto m = error.find("message"); m != error.end() && m->is_string()) message = m->get<std::string>();
  }
  std::string text =
      "MCP server '" + server + "' answered " + method + " with error " + std::to_string(code) + ": " + message;
  if (code == -32601) return Status::NotFound(text);
  if (code == -32002) return Status::NotFound(text);  // resource not found
  return Status::InvalidArgument(text);
}

nlohmann::json rpc_error_object(const Status& why) {
  int code = -32603;
  if (why.code() == ErrorCode::kPermissionDenied) code = -1;
  if (why.code() == ErrorCode::kInvalidArgument) code = -32602;
  return {{"code", code}, {"message", why.message()}};
}

}  // namespace keel::mcp
