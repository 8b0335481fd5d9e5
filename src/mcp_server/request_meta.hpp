// mcp_server/request_meta.hpp — the 2026-07-28 ("stateless") revision of MCP as keel's server
// speaks it beside the handshake revisions: a request carries its protocol version and the
// client's capabilities in params._meta instead of an initialize handshake, results carry
// resultType, list and read results carry cache hints, and the server names itself in each
// result's _meta. Specification:
// https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
//
// A request is served in the stateless revision when its params._meta names a protocol version
// (io.modelcontextprotocol/protocolVersion); everything else is the handshake revisions'.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "mcp/stateless_era.hpp"

namespace keel::mcp {

// The handshake revisions keel's server answers initialize with, newest first.
inline constexpr const char* kHandshakeProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};

inline constexpr const char* kMetaProtocolVersion = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* kMetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities";
inline constexpr const char* kMetaClientInfo = "io.modelcontextprotocol/clientInfo";
inline constexpr const char* kMetaServerInfo = "io.modelcontextprotocol/serverInfo";
inline constexpr const char* kMetaLogLevel = "io.modelcontextprotocol/logLevel";
inline constexpr const char* kMetaSubscriptionId = "io.modelcontextprotocol/subscriptionId";

// The revision's version and error codes (kStatelessVersion, kRpcHeaderMismatch,
// kRpcMissingClientCapability, kRpcUnsupportedVersion) are the client's: mcp/stateless_era.hpp.

// True for a handshake revision keel speaks (2025-03-26, 2025-06-18, 2025-11-25).
bool is_handshake_protocol_version(std::string_view version);

// params._meta when it names a protocol version (the request is the stateless revision's), else null.
const nlohmann::json* stateless_meta(const nlohmann::json& params);

// The error response a stateless request gets before it is dispatched: -32602 when _meta lacks
// the protocol version or the client capabilities, -32022 (with the supported versions) when the
// version is not one keel speaks. nullopt when the request may be served.
std::optional<nlohmann::json> check_stateless_meta(const nlohmann::json& id, const nlohmann::json& params);

// Every protocol version the server accepts, stateless first (server/discover, and the -32022 data).
nlohmann::json supported_protocol_versions();

// Makes `result` a result of the stateless revision: resultType "complete" unless it says
// otherwise, the server's identity in _meta, and for a cacheable method (server/discover,
// tools/list, prompts/list, resources/list, resources/templates/list, resources/read) the cache
// hints ttlMs and cacheScope. keel's lists and resources can change at any time, so they are
// private and fresh for 0 ms unless the result already says otherwise.
void finish_stateless_result(std::string_view method, nlohmann::json& result, const nlohmann::json& server_info);

}  // namespace keel::mcp
