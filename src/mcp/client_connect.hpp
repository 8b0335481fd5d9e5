// mcp/client_connect.hpp — the seams of McpClient that keel's own code and tests use: connecting
// over a transport built elsewhere (an in-process pair in tests), and the transport a config asks for.
#pragma once

#include <memory>

#include "keel/mcp.hpp"
#include "mcp/transport.hpp"

namespace keel::mcp {

// The transport `config` describes: stdio, Streamable HTTP or legacy SSE.
std::unique_ptr<Transport> make_transport(const McpServerConfig& config, const McpClientHooks& hooks = {});

// McpClient::connect() over `transport` (not yet started).
Result<std::unique_ptr<McpClient>> connect_client(const McpServerConfig& config, std::unique_ptr<Transport> transport,
                                                  McpClientHooks hooks);

// The protocol versions keel speaks, newest first; the first is the one it asks for.
inline constexpr const char* kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
bool supported_protocol_version(std::string_view version);

}  // namespace keel::mcp
