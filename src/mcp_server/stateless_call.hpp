// mcp_server/stateless_call.hpp — what a tool may do during a tools/call of the 2026-07-28
// revision: progress and log lines go on the request's own response stream (log lines only when
// the request's _meta set a level), and a request to the client becomes a multi round-trip
// request: the first call collects what it would ask, the session answers with an
// InputRequiredResult carrying a sealed requestState, and the client's retry brings the answers.
//
// Thread-safety: one call, one thread (the one handling the request).
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>

#include "mcp_server/message_handler.hpp"
#include "mcp_server/request_state_seal.hpp"
#include "mcp_server/server_catalog.hpp"

namespace keel::mcp {

// The rank of an MCP log level (debug 0 ... emergency 7); -1 for anything else.
int mcp_log_level_rank(std::string_view level);
// The capability a client must declare before a server may ask it `method` (sampling,
// elicitation, roots); "" when none is needed.
std::string mcp_capability_for(const std::string& method);

class StatelessCall final : public CallContext {
 public:
  // `meta` and `params` are the request's; `binding` names what a sealed requestState may answer
  // (the method, tool and arguments), so state from another call is not taken for this one.
  // `cancelled`: requested when the client gave up on the request (its response stream closed).
  StatelessCall(const MessageHandler::Notify& notify, const nlohmann::json& meta, const nlohmann::json& params,
                std::string binding, const RequestStateSeal& seal, std::stop_token cancelled = {});

  void progress(double progress, std::optional<double> total, const std::string& message) override;
  void log(std::string_view level, const nlohmann::json& data) override;
  // The answer from the retry's inputResponses when the retry's requestState is the one keel
  // sealed for this call; otherwise the request is noted for the InputRequiredResult and the
  // answer is Unavailable. FailedPrecondition when the client did not declare the capability.
  Result<nlohmann::json> ask_client(const std::string& method, const nlohmann::json& params,
                                    std::chrono::milliseconds timeout) override;
  nlohmann::json client_capabilities() const override { return capabilities_; }
  std::stop_token stop() const override { return stop_.get_token(); }
  nlohmann::json input_responses() const override { return input_responses_; }
  std::string request_state() const override { return request_state_; }
  bool stateless() const override { return true; }
  void reject(int code, const std::string& message, nlohmann::json data) override;

  // After the tool returned: the JSON-RPC error it asked for (code, message, data), if any.
  const std::optional<nlohmann::json>& rejection() const { return rejection_; }
  // After the tool returned: true when it asked the client for input it did not have yet, and the
  // InputRequiredResult that asks for it, its state valid until `expires_ms`.
  bool needs_input() const { return !pending_.empty(); }
  nlohmann::json input_required_result(int64_t expires_ms) const;

 private:
  const MessageHandler::Notify& notify_;
  nlohmann::json capabilities_;
  nlohmann::json progress_token_;
  int log_rank_ = -1;  // no log lines unless the request's _meta set a level
  nlohmann::json input_responses_;
  std::string request_state_;
  const std::string binding_;
  const RequestStateSeal& seal_;
  bool state_verified_ = false;
  int asks_ = 0;
  std::map<std::string, nlohmann::json> pending_;  // inputRequests by key
  std::optional<nlohmann::json> rejection_;
  std::stop_source stop_;
  std::stop_callback<std::function<void()>> on_cancelled_;  // after stop_, which it requests
};

}  // namespace keel::mcp
