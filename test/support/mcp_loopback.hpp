// An in-process MCP transport for tests: the client's messages go straight to a MessageHandler
// (the server side) on the sending thread, and its answers come back through the callbacks.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "mcp_server/message_handler.hpp"
#include "mcp/transport.hpp"

namespace keel::test {

class LoopbackTransport final : public mcp::Transport {
 public:
  explicit LoopbackTransport(std::unique_ptr<mcp::MessageHandler> server) : server_(std::move(server)) {}

  Status start(mcp::TransportCallbacks callbacks, std::chrono::milliseconds) override {
    callbacks_ = std::move(callbacks);
    return Status::Ok();
  }
  Status send(const nlohmann::json& message, const mcp::SendOptions&) override;
  void set_protocol_version(std::string version) override { version_ = std::move(version); }
  void close(std::chrono::milliseconds) override { closed_ = true; }
  std::string describe() const override { return "loopback"; }

  // Ends the connection as if the server died.
  void drop(const std::string& why) {
    closed_ = true;
    if (callbacks_.on_closed) callbacks_.on_closed(Status::Unavailable(why));
  }
  const std::string& protocol_version() const { return version_; }
  int sent() const { return sent_; }

 private:
  std::unique_ptr<mcp::MessageHandler> server_;
  mcp::TransportCallbacks callbacks_;
  std::string version_;
  std::atomic<bool> closed_{false};
  std::atomic<int> sent_{0};
};

}  // namespace keel::test
