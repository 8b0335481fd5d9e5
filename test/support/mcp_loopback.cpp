#include "support/mcp_loopback.hpp"

namespace keel::test {

Status LoopbackTransport::send(const nlohmann::json& message, const mcp::SendOptions&) {
  if (closed_) return Status::Unavailable("loopback closed");
  ++sent_;
  mcp::MessageHandler::Notify notify = [this](const nlohmann::json& m) {
    if (callbacks_.on_message) callbacks_.on_message(m);
  };
  std::optional<nlohmann::json> response = server_->handle(message, notify);
  if (response && callbacks_.on_message) callbacks_.on_message(*response);
  return Status::Ok();
}

}  // namespace keel::test
