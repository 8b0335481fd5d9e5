// ClientRequests: ids "keel-N" (strings, so they never collide with a client's numeric ids in
// logs), one slot per waiting request.
#include "mcp_server/client_requests.hpp"

namespace keel::mcp {

Result<nlohmann::json> ClientRequests::ask(const std::string& method, const nlohmann::json& params,
                                           const MessageHandler::Notify& send, std::chrono::milliseconds timeout,
                                           std::stop_token stop) {
  std::string id;
  {
    std::lock_guard lock(mu_);
    id = "keel-" + std::to_string(next_id_++);
    waiting_.emplace(id, std::nullopt);
  }
  send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
  std::unique_lock lock(mu_);
  auto done = [&] { return waiting_.at(id).has_value(); };
  bool answered = answered_.wait_for(lock, stop, timeout, done);
  std::optional<nlohmann::json> answer = std::move(waiting_.at(id));
  waiting_.erase(id);
  lock.unlock();
  if (!answered || !answer) {
    bool cancelled = stop.stop_requested();
    std::string reason = cancelled ? "the call was cancelled" : "no answer in time";
    send({{"jsonrpc", "2.0"},
          {"method", "notifications/cancelled"},
          {"params", {{"requestId", id}, {"reason", reason}}}});
    if (cancelled) return Status::Cancelled("the call was cancelled while waiting for the client's answer to " + method);
    return Status::DeadlineExceeded("the client did not answer " + method + " within " +
                                    std::to_string(timeout.count() / 1000) + " s");
  }
  if (auto error = answer->find("error"); error != answer->end()) {
    std::string message = error->is_object() ? error->value("message", std::string("(no message)")) : error->dump();
    return Status::Aborted("the client refused " + method + ": " + message);
  }
  auto result = answer->find("result");
  if (result == answer->end() || !result->is_object()) {
    return Status::Aborted("the client's answer to " + method + " has no result object");
  }
  return *result;
}

bool ClientRequests::resolve(const nlohmann::json& response) {
  auto id = response.find("id");
  if (id == response.end() || !id->is_string()) return false;
  std::lock_guard lock(mu_);
  auto slot = waiting_.find(id->get<std::string>());
  if (slot == waiting_.end() || slot->second) return false;
  slot->second = response;
  answered_.notify_all();
  return true;
}

size_t ClientRequests::waiting() const {
  std::lock_guard lock(mu_);
  return waiting_.size();
}

}  // namespace keel::mcp
