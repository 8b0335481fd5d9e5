#include "acp/json_rpc_peer.hpp"

#include <errno.h>
#include <unistd.h>

#include <cstring>
#include <string_view>

namespace keel::acp {

using nlohmann::json;

JsonRpcPeer::JsonRpcPeer(int in_fd, int out_fd, size_t max_message_bytes)
    : in_fd_(in_fd), out_fd_(out_fd), max_message_bytes_(max_message_bytes) {}

void JsonRpcPeer::write(const json& message) {
  std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace);
  line.push_back('\n');
  std::lock_guard<std::mutex> lock(write_mu_);
  if (broken_) return;
  size_t off = 0;
  while (off < line.size()) {
    ssize_t n = ::write(out_fd_, line.data() + off, line.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      broken_ = true;
      return;
    }
    off += static_cast<size_t>(n);
  }
}

void JsonRpcPeer::respond(const json& id, json result) {
  write({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void JsonRpcPeer::respond_error(const json& id, int code, const std::string& message) {
  write({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

void JsonRpcPeer::notify(const std::string& method, json params) {
  write({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

Result<json> JsonRpcPeer::request(const std::string& method, json params, std::stop_token stop,
                                  std::chrono::milliseconds timeout) {
  int64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ended_) return Status::Unavailable("the editor closed the connection before '" + method + "'");
    id = next_id_++;
    pending_[id];
  }
  write({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
  // Made before the lock is taken: a stop already requested runs the callback right here.
  std::stop_callback wake(stop, [this] {
    std::lock_guard<std::mutex> l(mu_);
    answered_.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu_);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  Pending& p = pending_[id];
  while (!p.done && !stop.stop_requested()) {
    if (answered_.wait_until(lock, deadline) == std::cv_status::timeout && !p.done) break;
  }
  Pending got = std::move(p);
  pending_.erase(id);
  if (got.done && got.result) return std::move(*got.result);
  if (got.done) {
    if (got.error.code == 0) return Status::Unavailable(got.error.message);
    return Status::FailedPrecondition("the editor answered '" + method + "' with error " +
                                      std::to_string(got.error.code) + ": " + got.error.message);
  }
  if (stop.stop_requested()) return Status::Cancelled("'" + method + "' was cancelled");
  return Status::DeadlineExceeded("the editor did not answer '" + method + "' in " +
                                  std::to_string(timeout.count() / 1000) + " s");
}

void JsonRpcPeer::answer_pending(const json& message) {
  const json& id = message["id"];
  if (!id.is_number_integer()) return;  // not one of ours: this side numbers its requests
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pending_.find(id.get<int64_t>());
  if (it == pending_.end()) return;  // answered after it was given up on
  Pending& p = it->second;
  p.done = true;
  if (message.contains("result")) {
    p.result = message["result"];
  } else {
    const json& e = message.value("error", json::object());
    p.error.code = e.is_object() && e.value("code", json()).is_number_integer() ? e["code"].get<int>() : kInternalError;
    p.error.message = e.is_object() && e.value("message", json()).is_string() ? e["message"].get<std::string>() : "";
    if (p.error.code == 0) p.error.code = kInternalError;
  }
  answered_.notify_all();
}

void JsonRpcPeer::end_pending(const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  ended_ = true;
  for (auto& [id, p] : pending_) {
    if (p.done) continue;
    p.done = true;
    p.error = RpcError{0, why};
  }
  answered_.notify_all();
}

Status JsonRpcPeer::serve(RpcHandler& handler) {
  std::string buffer;
  char chunk[65536];
  bool oversized = false;  // dropping the rest of a line longer than the limit
  auto dispatch = [&](std::string_view line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty()) return;
    json message = json::parse(line, nullptr, false);
    if (message.is_discarded()) {
      respond_error(nullptr, kParseError, "the message is not JSON");
      return;
    }
    if (!message.is_object() || message.value("jsonrpc", json()) != "2.0") {
      respond_error(message.is_object() ? message.value("id", json()) : json(), kInvalidRequest,
                    "not a JSON-RPC 2.0 message");
      return;
    }
    const bool has_id = message.contains("id");
    if (!message.contains("method")) {
      if (has_id && (message.contains("result") || message.contains("error"))) {
        answer_pending(message);
      } else {
        respond_error(message.value("id", json()), kInvalidRequest, "a message needs a method, or a result or error");
      }
      return;
    }
    const json& method = message["method"];
    const json params = message.value("params", json::object());
    if (!method.is_string()) {
      if (has_id) respond_error(message["id"], kInvalidRequest, "the method must be a string");
      return;
    }
    if (has_id) {
      const json& id = message["id"];
      if (!id.is_string() && !id.is_number_integer()) {
        respond_error(nullptr, kInvalidRequest, "the id must be a string or an integer");
        return;
      }
      handler.on_request(id, method.get<std::string>(), params);
    } else {
      handler.on_notification(method.get<std::string>(), params);
    }
  };
  for (;;) {
    ssize_t n = ::read(in_fd_, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      end_pending("the connection to the editor failed");
      return Status::Unavailable(std::string("cannot read the editor's messages: ") + std::strerror(errno));
    }
    if (n == 0) break;
    std::string_view data(chunk, static_cast<size_t>(n));
    while (!data.empty()) {
      const size_t nl = data.find('\n');
      const std::string_view piece = data.substr(0, nl);
      if (!oversized) buffer.append(piece);
      if (buffer.size() > max_message_bytes_) {
        buffer.clear();
        if (!oversized) respond_error(nullptr, kInvalidRequest, "the message is larger than the limit");
        oversized = true;
      }
      if (nl == std::string_view::npos) break;
      if (!oversized) dispatch(buffer);
      buffer.clear();
      oversized = false;
      data.remove_prefix(nl + 1);
    }
    std::lock_guard<std::mutex> lock(write_mu_);
    if (broken_) break;
  }
  if (!oversized) dispatch(buffer);  // a last line without its newline
  end_pending("the editor closed the connection");
  return Status::Ok();
}

}  // namespace keel::acp
