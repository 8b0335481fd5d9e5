// mcp_server/keel_mcp_session.hpp — one MCP session of keel's server: the methods a client calls,
// the session's state (the client's capabilities, its logging level, calls in flight, requests
// keel sent it, its resource subscriptions) and the channel back to the client.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "mcp_server/catalog_methods.hpp"
#include "mcp_server/message_handler.hpp"
#include "mcp_server/request_state_seal.hpp"
#include "mcp_server/resource_watch.hpp"
#include "mcp_server/server_catalog.hpp"

namespace keel::mcp {

// What a session needs of the server it belongs to (KeelMcpServer's implementation).
class SessionHost {
 public:
  virtual ~SessionHost() = default;
  virtual nlohmann::json initialize_result(const nlohmann::json& params) const = 0;
  // server/discover's result (2026-07-28): versions, capabilities, instructions.
  virtual nlohmann::json discover_result() const = 0;
  // {name, version}: named in each stateless result's _meta.
  virtual const nlohmann::json& server_info() const = 0;
  // Seals the requestState of stateless calls that need the client's input.
  virtual const RequestStateSeal& seal() const = 0;
  virtual const nlohmann::json& tool_list() const = 0;
  // The tools/call result; nullopt for a tool the server does not have.
  virtual std::optional<nlohmann::json> call_tool(const std::string& name, const nlohmann::json& arguments,
                                                  CallContext& context) = 0;
  virtual Catalogs catalogs() const = 0;
  virtual const SecretRedactor* redactor() const = 0;  // applied to resources and prompts; nullptr: none
  virtual ResourceWatch& watch() = 0;
};

// A new session of `host`, which must outlive it.
std::unique_ptr<MessageHandler> make_keel_session(SessionHost& host);

}  // namespace keel::mcp
