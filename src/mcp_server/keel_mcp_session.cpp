// KeelSession: dispatch by method; the server-to-client side (progress, log messages, requests,
// resource updates) goes through SessionCall during a call and through the outbox otherwise.
#include "mcp_server/keel_mcp_session.hpp"

#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <stop_token>

#include "mcp_server/client_requests.hpp"
#include "mcp_server/jsonrpc_reply.hpp"

namespace keel::mcp {

namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 8> kLogLevels = {"debug", "info",     "notice", "warning",
                                                        "error", "critical", "alert",  "emergency"};

int log_level_rank(std::string_view level) {
  for (size_t i = 0; i < kLogLevels.size(); ++i) {
    if (kLogLevels[i] == level) return static_cast<int>(i);
  }
  return -1;
}

// The capability a client must declare before keel sends it `method`; "" when none is needed.
std::string capability_for(const std::string& method) {
  if (method == "sampling/createMessage") return "sampling";
  if (method == "elicitation/create") return "elicitation";
  if (method == "roots/list") return "roots";
  return "";
}

json notification(const char* method, json params) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

std::atomic<uint64_t> g_next_session_key{1};

// The channel for messages tied to no request. Shared with the resource watch's callbacks, so an
// update reported while the session ends finds it still there (and closed).
class Outbox {
 public:
  void set(MessageHandler::Notify send) {
    std::lock_guard lock(mu_);
    send_ = std::move(send);
  }
  void send(const json& message) {
    std::lock_guard lock(mu_);
    if (send_) send_(message);
  }

 private:
  std::mutex mu_;
  MessageHandler::Notify send_;
};

class KeelSession;

// What a tool may do on the session while it runs; lives for one tools/call.
class SessionCall final : public CallContext {
 public:
  SessionCall(KeelSession& session, const MessageHandler::Notify& notify, json progress_token, std::stop_token stop)
      : session_(session), notify_(notify), token_(std::move(progress_token)), stop_(std::move(stop)) {}

  void progress(double progress, std::optional<double> total, const std::string& message) override {
    if (token_.is_null()) return;
    json params = {{"progressToken", token_}, {"progress", progress}};
    if (total) params["total"] = *total;
    if (!message.empty()) params["message"] = message;
    notify_(notification("notifications/progress", std::move(params)));
  }
  void log(std::string_view level, const json& data) override;
  Result<json> ask_client(const std::string& method, const json& params, std::chrono::milliseconds timeout) override;
  json client_capabilities() const override;
  std::stop_token stop() const override { return stop_; }

 private:
  KeelSession& session_;
  const MessageHandler::Notify& notify_;
  const json token_;
  const std::stop_token stop_;
};

class KeelSession final : public MessageHandler {
 public:
  explicit KeelSession(SessionHost& host)
      : host_(host), key_(g_next_session_key.fetch_add(1)), outbox_(std::make_shared<Outbox>()) {}
  ~KeelSession() override {
    host_.watch().drop(key_);
    outbox_->set(nullptr);
  }

  std::optional<json> handle(const json& message, const Notify& notify) override {
    try {
      return dispatch(message, notify);
    } catch (const std::exception& e) {
      json id = message.is_object() && message.contains("id") ? message["id"] : json();
      return reply_error(id, kRpcInternalError, std::string("internal error: ") + e.what());
    }
  }

  void set_outbox(Notify outbox) override { outbox_->set(std::move(outbox)); }

  bool logs_at(std::string_view level) const {
    std::lock_guard lock(mu_);
    int rank = log_level_rank(level);
    return log_rank_ >= 0 && rank >= log_rank_;
  }
  json capabilities() const {
    std::lock_guard lock(mu_);
    return client_caps_;
  }
  ClientRequests& requests() { return requests_; }

 private:
  std::optional<json> dispatch(const json& message, const Notify& notify) {
    if (!message.is_object()) return reply_error(nullptr, -32600, "a message must be a JSON object");
    auto method_it = message.find("method");
    bool has_id = message.contains("id");
    json id = has_id ? message["id"] : json();
    if (method_it == message.end()) {  // a response: to a request keel sent, or ignored
      (void)requests_.resolve(message);
      return std::nullopt;
    }
    if (!method_it->is_string()) {
      return has_id ? std::optional<json>(reply_error(id, -32600, "method must be a string")) : std::nullopt;
    }
    const std::string method = method_it->get<std::string>();
    json params = message.value("params", json::object());
    if (!has_id) {
      if (method == "notifications/cancelled" && params.is_object() && params.contains("requestId")) {
        std::lock_guard lock(mu_);
        auto it = in_flight_.find(params["requestId"].dump());
        if (it != in_flight_.end()) it->second.request_stop();
      }
      return std::nullopt;
    }
    if (method == "initialize") {
      std::lock_guard lock(mu_);
      if (params.is_object() && params.contains("capabilities") && params["capabilities"].is_object()) {
        client_caps_ = params["capabilities"];
      }
      return reply_result(id, host_.initialize_result(params));
    }
    if (method == "ping") return reply_result(id, json::object());
    if (method == "tools/list") return reply_result(id, {{"tools", host_.tool_list()}});
    if (method == "tools/call") return call_tool(id, params, notify);
    if (method == "logging/setLevel") {
      std::string level = params.is_object() ? params.value("level", "") : "";
      int rank = log_level_rank(level);
      if (rank < 0) return reply_error(id, kRpcInvalidParams, "unknown logging level \"" + level + "\"");
      std::lock_guard lock(mu_);
      log_rank_ = rank;
      return reply_result(id, json::object());
    }
    if (!host_.catalogs().empty()) {  // else resources, prompts and completions were not declared
      if (method == "resources/subscribe" || method == "resources/unsubscribe") return subscription(method, id, params);
      if (std::optional<json> answer = answer_catalog_method(method, id, params, host_.catalogs(), host_.redactor())) return answer;
    }
    return reply_error(id, kRpcMethodNotFound, "method not found: " + method);
  }

  json subscription(const std::string& method, const json& id, const json& params) {
    if (!params.is_object() || !params.contains("uri") || !params["uri"].is_string()) {
      return reply_error(id, kRpcInvalidParams, method + " needs params.uri (a string)");
    }
    std::string uri = params["uri"].get<std::string>();
    if (method == "resources/unsubscribe") {
      host_.watch().unsubscribe(key_, uri);
      return reply_result(id, json::object());
    }
    std::weak_ptr<Outbox> outbox = outbox_;
    Status s = host_.watch().subscribe(key_, uri, [outbox](const std::string& changed) {
      if (auto box = outbox.lock()) box->send(notification("notifications/resources/updated", {{"uri", changed}}));
    });
    if (s.code() == ErrorCode::kNotFound) {
      return reply_error(id, kRpcResourceNotFound, "Resource not found: " + uri, {{"uri", uri}});
    }
    if (!s.ok()) return reply_error(id, kRpcInvalidParams, s.message(), {{"uri", uri}});
    return reply_result(id, json::object());
  }

  json call_tool(const json& id, const json& params, const Notify& notify) {
    if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
      return reply_error(id, kRpcInvalidParams, "tools/call needs params.name (a string)");
    }
    json arguments = params.value("arguments", json::object());
    if (arguments.is_null()) arguments = json::object();
    if (!arguments.is_object()) return reply_error(id, kRpcInvalidParams, "tools/call params.arguments must be an object");
    json token;
    if (params.contains("_meta") && params["_meta"].is_object()) {
      const json& meta = params["_meta"];
      if (auto t = meta.find("progressToken"); t != meta.end() && (t->is_string() || t->is_number_integer())) token = *t;
    }
    std::stop_source stop;
    const std::string key = id.dump();
    {
      std::lock_guard lock(mu_);
      in_flight_[key] = stop;
    }
    std::string name = params["name"].get<std::string>();
    SessionCall context(*this, notify, std::move(token), stop.get_token());
    std::optional<json> result = host_.call_tool(name, arguments, context);
    {
      std::lock_guard lock(mu_);
      in_flight_.erase(key);
    }
    if (!result) return reply_error(id, kRpcInvalidParams, "unknown tool: " + name);
    return reply_result(id, std::move(*result));
  }

  SessionHost& host_;
  const uint64_t key_;  // this session in the resource watch
  std::shared_ptr<Outbox> outbox_;
  ClientRequests requests_;
  mutable std::mutex mu_;
  std::map<std::string, std::stop_source> in_flight_;  // by request id (as JSON text)
  json client_caps_ = json::object();
  int log_rank_ = -1;  // no log messages until the client sets a level
};

void SessionCall::log(std::string_view level, const json& data) {
  if (!session_.logs_at(level)) return;
  notify_(notification("notifications/message", {{"level", std::string(level)}, {"logger", "keel"}, {"data", data}}));
}

Result<json> SessionCall::ask_client(const std::string& method, const json& params, std::chrono::milliseconds timeout) {
  std::string capability = capability_for(method);
  if (!capability.empty()) {
    json caps = session_.capabilities();
    if (!caps.contains(capability)) {
      return Status::FailedPrecondition("the MCP client did not declare the " + capability +
                                        " capability, so keel cannot send it " + method);
    }
  }
  return session_.requests().ask(method, params, notify_, timeout, stop_);
}

json SessionCall::client_capabilities() const { return session_.capabilities(); }

}  // namespace

std::unique_ptr<MessageHandler> make_keel_session(SessionHost& host) { return std::make_unique<KeelSession>(host); }

}  // namespace keel::mcp
