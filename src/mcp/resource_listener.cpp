// One subscriptions/listen request per server; see resource_listener.hpp.
#include "mcp/resource_listener.hpp"

#include <vector>

namespace keel::mcp {

using nlohmann::json;
using std::chrono::milliseconds;

namespace {

// How long one listen request may stay open; a server that keeps it longer has it cut here.
constexpr std::chrono::hours kListenLifetime{24};
constexpr const char* kSubscriptionIdKey = "io.modelcontextprotocol/subscriptionId";

}  // namespace

ResourceListener::ResourceListener(Transport& transport, std::function<int64_t()> next_id,
                                   std::function<void(json&)> add_meta)
    : transport_(transport), next_id_(std::move(next_id)), add_meta_(std::move(add_meta)) {}

Status ResourceListener::subscribe(const std::string& uri, milliseconds timeout, std::stop_token stop) {
  stop_current();
  const int64_t id = next_id_();
  json message;
  SendOptions options;
  {
    std::lock_guard lock(mu_);
    uris_.insert(uri);
    id_ = id;
    acknowledged_ = false;
    honoured_ = nullptr;
    ended_ = nullptr;
    stream_stop_ = std::stop_source();
    json params = {
        {"notifications", {{"resourceSubscriptions", std::vector<std::string>(uris_.begin(), uris_.end())}}}};
    add_meta_(params);
    message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", "subscriptions/listen"}, {"params", std::move(params)}};
    options.stop = stream_stop_.get_token();
  }
  options.timeout = std::chrono::duration_cast<milliseconds>(kListenLifetime);
  options.awaiting_response = [this, id] {
    std::lock_guard lock(mu_);
    return id_ == id && ended_.is_null();
  };
  std::thread sender([this, id, message = std::move(message), options = std::move(options)] {
    Status sent = transport_.send(message, options);
    std::lock_guard lock(mu_);
    if (id_ == id && ended_.is_null()) {
      ended_ = {{"error", {{"message", sent.ok() ? std::string("the listen stream ended") : sent.message()}}}};
    }
    changed_.notify_all();
  });
  std::unique_lock lock(mu_);
  sender_ = std::move(sender);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  changed_.wait_until(lock, stop, deadline, [&] { return acknowledged_ || !ended_.is_null(); });
  if (acknowledged_) {
    const json wanted = honoured_.is_object() ? honoured_.value("resourceSubscriptions", json::array()) : json::array();
    for (const json& honoured : wanted) {
      if (honoured == uri) return Status::Ok();
    }
    return Status::FailedPrecondition("the server does not send updates of " + uri);
  }
  if (!ended_.is_null()) {
    const json error = ended_.value("error", json::object());
    return Status::Unavailable("subscriptions/listen ended: " +
                               (error.is_object() ? error.value("message", ended_.dump()) : ended_.dump()));
  }
  if (stop.stop_requested()) return Status::Cancelled("subscribing to " + uri + " was cancelled");
  return Status::DeadlineExceeded("no acknowledgment of subscriptions/listen within " +
                                  std::to_string(timeout.count()) + " ms");
}

bool ResourceListener::consume(const json& message) {
  auto method = message.find("method");
  if (method != message.end()) {
    if (*method != "notifications/subscriptions/acknowledged") return false;
    const json params = message.value("params", json::object());
    const json meta = params.is_object() ? params.value("_meta", json::object()) : json::object();
    std::lock_guard lock(mu_);
    if (id_ != 0 && meta.is_object() && meta.value(kSubscriptionIdKey, json()) == id_) {
      acknowledged_ = true;
      honoured_ = params.value("notifications", json::object());
      changed_.notify_all();
    }
    return true;  // an acknowledgment of an earlier listen request: nothing waits for it
  }
  auto id = message.find("id");
  if (id == message.end() || !id->is_number_integer()) return false;
  std::lock_guard lock(mu_);
  if (id_ == 0 || id->get<int64_t>() != id_) return false;
  ended_ = message;
  changed_.notify_all();
  return true;
}

void ResourceListener::stop_current() {
  int64_t old = 0;
  std::thread sender;
  {
    std::lock_guard lock(mu_);
    old = id_;
    id_ = 0;
    stream_stop_.request_stop();
    sender = std::move(sender_);
  }
  if (old != 0) {
    SendOptions options;
    options.timeout = milliseconds(1000);
    (void)transport_.send({{"jsonrpc", "2.0"},
                           {"method", "notifications/cancelled"},
                           {"params", {{"requestId", old}, {"reason", "subscriptions changed or client closing"}}}},
                          options);
  }
  if (sender.joinable()) sender.join();
}

void ResourceListener::close() {
  stop_current();
  std::lock_guard lock(mu_);
  uris_.clear();
}

}  // namespace keel::mcp
