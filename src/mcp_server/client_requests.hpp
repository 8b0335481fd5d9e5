// mcp_server/client_requests.hpp — requests an MCP server sends to its client (sampling,
// elicitation, roots) while it handles a call, and the matching of the client's answers to them.
//
//   ClientRequests requests;
//   Result<json> r = requests.ask("elicitation/create", params, notify, 10min, stop);  // waits
//   ...                                // meanwhile, on another thread, the client's answer arrives:
//   requests.resolve(message);         // true: it answered a request keel sent
//
// Thread-safety: all members may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stop_token>
#include <string>

#include "keel/result.hpp"
#include "mcp_server/message_handler.hpp"

namespace keel::mcp {

class ClientRequests {
 public:
  // Sends the request through `send` and waits for the client's answer: its result, or Aborted
  // with the client's error message, DeadlineExceeded after `timeout`, Cancelled once `stop` is
  // requested (the client is then told with notifications/cancelled).
  Result<nlohmann::json> ask(const std::string& method, const nlohmann::json& params,
                             const MessageHandler::Notify& send, std::chrono::milliseconds timeout,
                             std::stop_token stop);

  // Hands a client's response ({id, result} or {id, error}) to the request waiting for it; false
  // when no request with that id is waiting (an unknown id, or one that timed out).
  bool resolve(const nlohmann::json& response);

  // Requests waiting for an answer.
  size_t waiting() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable_any answered_;
  std::map<std::string, std::optional<nlohmann::json>> waiting_;  // id → answer once it came
  uint64_t next_id_ = 1;
};

}  // namespace keel::mcp
