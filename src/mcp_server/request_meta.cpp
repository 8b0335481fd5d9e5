// The 2026-07-28 per-request metadata and result shape; see request_meta.hpp.
#include "mcp_server/request_meta.hpp"

#include "mcp_server/jsonrpc_reply.hpp"

namespace keel::mcp {

using nlohmann::json;

bool is_handshake_protocol_version(std::string_view version) {
  for (const char* v : kHandshakeProtocolVersions) {
    if (version == v) return true;
  }
  return false;
}

const json* stateless_meta(const json& params) {
  if (!params.is_object()) return nullptr;
  auto meta = params.find("_meta");
  if (meta == params.end() || !meta->is_object() || !meta->contains(kMetaProtocolVersion)) return nullptr;
  return &*meta;
}

json supported_protocol_versions() {
  json versions = json::array({kStatelessVersion});
  for (const char* v : kHandshakeProtocolVersions) versions.push_back(v);
  return versions;
}

std::optional<json> check_stateless_meta(const json& id, const json& params) {
  const json* meta = params.is_object() && params.contains("_meta") ? &params["_meta"] : nullptr;
  if (meta == nullptr || !meta->is_object()) {
    return reply_error(id, kRpcInvalidParams,
                       "Invalid params: a request of MCP 2026-07-28 needs params._meta with " +
                           std::string(kMetaProtocolVersion) + " and " + kMetaClientCapabilities);
  }
  auto version = meta->find(kMetaProtocolVersion);
  if (version == meta->end() || !version->is_string() || version->get<std::string>().empty()) {
    return reply_error(id, kRpcInvalidParams,
                       std::string("Invalid params: params._meta needs ") + kMetaProtocolVersion + " (a string)");
  }
  auto caps = meta->find(kMetaClientCapabilities);
  if (caps == meta->end() || !caps->is_object()) {
    return reply_error(id, kRpcInvalidParams,
                       std::string("Invalid params: params._meta needs ") + kMetaClientCapabilities + " (an object)");
  }
  const std::string requested = version->get<std::string>();
  if (requested != kStatelessVersion) {
    std::string message = "Unsupported protocol version '" + requested + "': without an initialize handshake keel speaks " +
                          kStatelessVersion + "; the handshake revisions need initialize first";
    return reply_error(id, kRpcUnsupportedVersion, message,
                       {{"supported", supported_protocol_versions()}, {"requested", requested}});
  }
  return std::nullopt;
}

void finish_stateless_result(std::string_view method, json& result, const json& server_info) {
  if (!result.is_object()) return;
  if (!result.contains("resultType")) result["resultType"] = "complete";
  json& meta = result["_meta"];
  if (!meta.is_object()) meta = json::object();
  if (!meta.contains(kMetaServerInfo)) meta[kMetaServerInfo] = server_info;
  static constexpr std::string_view kCacheable[] = {"server/discover", "tools/list", "prompts/list",
                                                    "resources/list", "resources/templates/list", "resources/read"};
  if (result["resultType"] != "complete") return;
  for (std::string_view m : kCacheable) {
    if (m != method) continue;
    if (!result.contains("ttlMs")) result["ttlMs"] = 0;
    if (!result.contains("cacheScope")) result["cacheScope"] = "private";
  }
}

}  // namespace keel::mcp
