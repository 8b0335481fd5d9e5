// Shared by the HTTP transport tests: an inbox that records what a transport reports through its
// callbacks, and the options of a send that awaits one response.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keel/result.hpp"
#include "mcp/transport.hpp"

namespace keel::testing {

class HttpTestInbox {
 public:
  mcp::TransportCallbacks callbacks() {
    mcp::TransportCallbacks c;
    c.on_message = [this](nlohmann::json m) { add(messages_, std::move(m)); };
    c.on_garbage = [this](std::string g) { add(garbage_, std::move(g)); };
    c.on_closed = [this](Status s) { add(closed_, std::move(s)); };
    c.on_log = [this](std::string l) { add(logs_, std::move(l)); };
    return c;
  }

  // Whether the response (result or error) to request `id` arrived.
  bool has_response(const nlohmann::json& id) const {
    std::lock_guard lock(mutex_);
    for (const nlohmann::json& m : messages_) {
      if (m.value("id", nlohmann::json()) == id && !m.contains("method")) return true;
    }
    return false;
  }

  // Wait until `count` messages, or an on_closed, arrived; false on timeout.
  bool wait_for_messages(size_t count, std::chrono::milliseconds timeout = std::chrono::seconds(5)) const {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return messages_.size() >= count; });
  }
  bool wait_for_closed(std::chrono::milliseconds timeout = std::chrono::seconds(5)) const {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return !closed_.empty(); });
  }

  std::vector<nlohmann::json> messages() const { return get(messages_); }
  std::vector<std::string> garbage() const { return get(garbage_); }
  std::vector<Status> closed() const { return get(closed_); }
  std::vector<std::string> logs() const { return get(logs_); }

  // Send options for request `id`: awaiting its response, with `timeout`.
  mcp::SendOptions awaiting(int id, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    mcp::SendOptions o;
    o.timeout = timeout;
    o.awaiting_response = [this, id] { return !has_response(id); };
    return o;
  }

 private:
  template <class T>
  void add(std::vector<T>& to, T value) {
    {
      std::lock_guard lock(mutex_);
      to.push_back(std::move(value));
    }
    changed_.notify_all();
  }
  template <class T>
  std::vector<T> get(const std::vector<T>& from) const {
    std::lock_guard lock(mutex_);
    return from;
  }

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::vector<nlohmann::json> messages_;
  std::vector<std::string> garbage_;
  std::vector<Status> closed_;
  std::vector<std::string> logs_;
};

inline nlohmann::json mcp_request(int id, const std::string& method) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", nlohmann::json::object()}};
}

inline nlohmann::json mcp_notification(const std::string& method) {
  return {{"jsonrpc", "2.0"}, {"method", method}};
}

inline int64_t ms_between(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count();
}

}  // namespace keel::testing
