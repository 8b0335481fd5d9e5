// acp/json_rpc_peer.hpp — one side of a JSON-RPC 2.0 connection carried as newline-delimited JSON
// on a pair of file descriptors (ACP's stdio transport). Both sides send requests: the editor asks
// the agent to prompt, the agent asks the editor for permission, so a request this side sends is
// answered through the same reader that dispatches the other side's messages.
//
// Thread-safety: respond(), notify() and request() may be called from any thread; serve() runs
// on one thread and calls the handler there, one message at a time.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stop_token>
#include <string>

#include "keel/result.hpp"

namespace keel::acp {

// JSON-RPC's error codes, and ACP's own.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kResourceNotFound = -32002;

// What the other side sends: requests (with an id) and notifications (without).
class RpcHandler {
 public:
  virtual ~RpcHandler() = default;
  // Must answer with respond() or respond_error() exactly once, now or later from another thread.
  virtual void on_request(const nlohmann::json& id, const std::string& method, const nlohmann::json& params) = 0;
  virtual void on_notification(const std::string& method, const nlohmann::json& params) = 0;
};

// An error answer to a request this side sent, as the other side gave it.
struct RpcError {
  int code = kInternalError;
  std::string message;
};

class JsonRpcPeer {
 public:
  JsonRpcPeer(int in_fd, int out_fd, size_t max_message_bytes = 16u << 20);

  // Reads messages until the input ends or the output breaks, dispatching requests and
  // notifications to `handler` and answers to the requests waiting in request(). A line that is
  // not JSON, or not a JSON-RPC message, is answered with the protocol's error. Ok at the end of
  // the input; Unavailable when it cannot be read.
  Status serve(RpcHandler& handler);

  void respond(const nlohmann::json& id, nlohmann::json result);
  void respond_error(const nlohmann::json& id, int code, const std::string& message);
  void notify(const std::string& method, nlohmann::json params);

  // Sends a request and waits for its answer: the result, an RpcError from the other side in
  // the Status message (code Unavailable when the connection ended), DeadlineExceeded after
  // `timeout`, Cancelled when `stop` is requested first.
  Result<nlohmann::json> request(const std::string& method, nlohmann::json params, std::stop_token stop,
                                 std::chrono::milliseconds timeout);

 private:
  struct Pending {
    bool done = false;
    std::optional<nlohmann::json> result;
    RpcError error;
  };
  void write(const nlohmann::json& message);
  void answer_pending(const nlohmann::json& message);
  void end_pending(const std::string& why);

  int in_fd_;
  int out_fd_;
  size_t max_message_bytes_;
  std::mutex write_mu_;
  bool broken_ = false;
  std::mutex mu_;  // pending_, next_id_, ended_
  std::condition_variable answered_;
  std::map<int64_t, Pending> pending_;
  int64_t next_id_ = 1;
  bool ended_ = false;
};

}  // namespace keel::acp
