// KeelSession: dispatch by method; the server-to-client side (progress, log messages, requests,
// resource updates) goes through SessionCall during a call and through the outbox otherwise.
#include "mcp_server/keel_mcp_session.hpp"

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <stop_token>

#include "mcp_server/client_requests.hpp"
#include "mcp_server/jsonrpc_reply.hpp"
#include "mcp_server/request_meta.hpp"
#include "mcp_server/stateless_call.hpp"
#include "base/clock.hpp"

namespace keel::mcp {

namespace {

using nlohmann::json;

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

// The session's open subscriptions/listen streams, each a key in the resource watch. Shared with
// the streams' close functions, which may run after the session is gone (an HTTP client that
// leaves late): once the session closed them all, a close does nothing.
class ListenRegistry {
 public:
  uint64_t open() {
    std::lock_guard lock(mu_);
    uint64_t key = g_next_session_key.fetch_add(1);
    keys_.insert(key);
    return key;
  }
  void close(ResourceWatch& watch, uint64_t key) {
    std::lock_guard lock(mu_);
    if (keys_.erase(key) > 0) watch.drop(key);
  }
  void close_all(ResourceWatch& watch) {
    std::lock_guard lock(mu_);
    for (uint64_t key : keys_) watch.drop(key);
    keys_.clear();
    closed_ = true;
  }
  bool closed() const {
    std::lock_guard lock(mu_);
    return closed_;
  }

 private:
  mutable std::mutex mu_;
  std::set<uint64_t> keys_;
  bool closed_ = false;
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
    std::map<std::string, std::function<void()>> stdio_listens;
    {
      std::lock_guard lock(mu_);
      stdio_listens.swap(stdio_listens_);
    }
    for (auto& [id, close] : stdio_listens) close();
    listens_->close_all(host_.watch());
  }

  Listen listen(const json& request, Notify sink) override {
    const json id = request.value("id", json());
    return open_listen(id, request.value("params", json::object()), std::move(sink));
  }

  std::optional<json> handle(const json& message, const Notify& notify) override {
    return handle_cancellable(message, notify, {});
  }

  std::optional<json> handle_cancellable(const json& message, const Notify& notify, std::stop_token cancelled) override {
    try {
      return dispatch(message, notify, std::move(cancelled));
    } catch (const std::exception& e) {
      json id = message.is_object() && message.contains("id") ? message["id"] : json();
      return reply_error(id, kRpcInternalError, std::string("internal error: ") + e.what());
    }
  }

  void set_outbox(Notify outbox) override { outbox_->set(std::move(outbox)); }

  bool logs_at(std::string_view level) const {
    std::lock_guard lock(mu_);
    int rank = mcp_log_level_rank(level);
    return log_rank_ >= 0 && rank >= log_rank_;
  }
  json capabilities() const {
    std::lock_guard lock(mu_);
    return client_caps_;
  }
  ClientRequests& requests() { return requests_; }

 private:
  std::optional<json> dispatch(const json& message, const Notify& notify, std::stop_token cancelled) {
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
        std::function<void()> close_listen;
        {
          std::lock_guard lock(mu_);
          const std::string key = params["requestId"].dump();
          auto it = in_flight_.find(key);
          if (it != in_flight_.end()) it->second.request_stop();
          if (auto l = stdio_listens_.find(key); l != stdio_listens_.end()) {
            close_listen = std::move(l->second);
            stdio_listens_.erase(l);
          }
        }
        if (close_listen) close_listen();
      }
      return std::nullopt;
    }
    if (const json* meta = stateless_meta(params)) {
      return dispatch_stateless(method, id, params, *meta, notify, std::move(cancelled));
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
      int rank = mcp_log_level_rank(level);
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

  // A request of the 2026-07-28 revision: no session state is read; the client's capabilities
  // and log level come from the request's _meta.
  std::optional<json> dispatch_stateless(const std::string& method, const json& id, const json& params,
                                         const json& meta, const Notify& notify, std::stop_token cancelled) {
    if (std::optional<json> refused = check_stateless_meta(id, params)) return refused;
    if (std::optional<json> refused = check_input_responses(id, params)) return refused;
    json answer;
    if (method == "server/discover") {
      answer = reply_result(id, host_.discover_result());
    } else if (method == "tools/list") {
      answer = reply_result(id, {{"tools", host_.tool_list()}});
    } else if (method == "tools/call") {
      answer = call_tool_stateless(id, params, meta, notify, std::move(cancelled));
    } else if (method == "subscriptions/listen") {
      // stdio: the stream is the session's output; notifications/cancelled ends it.
      std::weak_ptr<Outbox> weak = outbox_;
      Listen opened = open_listen(id, params, [weak](const json& m) {
        if (auto box = weak.lock()) box->send(m);
      });
      if (opened.error) return opened.error;
      std::lock_guard lock(mu_);
      stdio_listens_[id.dump()] = std::move(opened.close);
      return std::nullopt;
    } else if (std::optional<json> from_catalog =
                   host_.catalogs().empty() ? std::nullopt
                                            : answer_catalog_method(method, id, params, host_.catalogs(), host_.redactor())) {
      answer = std::move(*from_catalog);
      // 2026-07-28 reports an unknown resource as invalid params, naming the URI in data.
      if (answer.contains("error") && answer["error"].value("code", 0) == kRpcResourceNotFound) {
        answer["error"]["code"] = kRpcInvalidParams;
      }
    } else {
      const bool removed = method == "initialize" || method == "ping" || method == "logging/setLevel" ||
                           method == "resources/subscribe" || method == "resources/unsubscribe";
      answer = reply_error(id, kRpcMethodNotFound,
                           removed ? "method not found: " + method +
                                         " is not part of MCP 2026-07-28 (no handshake, ping or session state; "
                                         "use server/discover, _meta and subscriptions/listen)"
                                   : "method not found: " + method);
    }
    if (answer.contains("result")) finish_stateless_result(method, answer["result"], host_.server_info());
    return answer;
  }

  // A retry's inputResponses must map each input request's key to its result (an object), and its
  // requestState must be a string; anything else is a protocol error, not an answer.
  static std::optional<json> check_input_responses(const json& id, const json& params) {
    if (auto responses = params.find("inputResponses"); responses != params.end()) {
      bool valid = responses->is_object();
      if (valid) {
        for (const auto& [key, value] : responses->items()) valid = valid && value.is_object();
      }
      if (!valid) {
        return reply_error(id, kRpcInvalidParams,
                           "Invalid params: inputResponses must be an object mapping each input request's key to its result "
                           "object");
      }
    }
    if (auto state = params.find("requestState"); state != params.end() && !state->is_string()) {
      return reply_error(id, kRpcInvalidParams, "Invalid params: requestState must be the string the server gave");
    }
    return std::nullopt;
  }

  json call_tool_stateless(const json& id, const json& params, const json& meta, const Notify& notify,
                           std::stop_token cancelled) {
    if (!params.contains("name") || !params["name"].is_string()) {
      return reply_error(id, kRpcInvalidParams, "tools/call needs params.name (a string)");
    }
    json arguments = params.value("arguments", json::object());
    if (arguments.is_null()) arguments = json::object();
    if (!arguments.is_object()) return reply_error(id, kRpcInvalidParams, "tools/call params.arguments must be an object");
    const std::string name = params["name"].get<std::string>();
    StatelessCall context(notify, meta, params, "tools/call\n" + name + "\n" + arguments.dump(), host_.seal(),
                          std::move(cancelled));
    std::optional<json> result = host_.call_tool(name, arguments, context);
    if (context.rejection()) return {{"jsonrpc", "2.0"}, {"id", id}, {"error", *context.rejection()}};
    if (!result) return reply_error(id, kRpcInvalidParams, "unknown tool: " + name);
    if (context.needs_input()) {
      constexpr int64_t kStateLifetimeMs = 10 * 60 * 1000;  // as long as keel waits for an approval
      return reply_result(id, context.input_required_result(keel::detail::wall_now_ms() + kStateLifetimeMs));
    }
    return reply_result(id, std::move(*result));
  }

  // Opens a subscriptions/listen stream: the acknowledgment names what keel honours of the
  // client's filter (resource updates for URIs a catalog knows; keel's tool, prompt and resource
  // lists do not change while it runs), and every later notification carries the subscription id.
  Listen open_listen(const json& id, const json& params, Notify sink) {
    Listen opened;
    if (std::optional<json> refused = check_stateless_meta(id, params)) {
      opened.error = std::move(refused);
      return opened;
    }
    const json filter = params.value("notifications", json::object());
    if (!filter.is_object()) {
      opened.error = reply_error(id, kRpcInvalidParams, "subscriptions/listen params.notifications must be an object");
      return opened;
    }
    std::vector<std::string> uris;
    if (auto wanted = filter.find("resourceSubscriptions"); wanted != filter.end() && wanted->is_array()) {
      for (const json& uri : *wanted) {
        if (uri.is_string() && catalog_resource_version(host_.catalogs(), uri.get<std::string>()).ok()) {
          uris.push_back(uri.get<std::string>());
        }
      }
    }
    json honoured = json::object();
    if (!uris.empty()) honoured["resourceSubscriptions"] = uris;
    auto tagged = [id](json message) {
      message["params"]["_meta"][kMetaSubscriptionId] = id;
      return message;
    };
    sink(tagged(notification("notifications/subscriptions/acknowledged", {{"notifications", honoured}})));
    const uint64_t key = listens_->open();
    auto shared_sink = std::make_shared<Notify>(std::move(sink));
    for (const std::string& uri : uris) {
      (void)host_.watch().subscribe(key, uri, [shared_sink, tagged](const std::string& changed) {
        (*shared_sink)(tagged(notification("notifications/resources/updated", {{"uri", changed}})));
      });
    }
    std::weak_ptr<ListenRegistry> weak = listens_;
    ResourceWatch* watch = &host_.watch();
    opened.close = [weak, watch, key] {
      if (auto registry = weak.lock(); registry && !registry->closed()) registry->close(*watch, key);
    };
    return opened;
  }

  SessionHost& host_;
  const uint64_t key_;  // this session in the resource watch
  std::shared_ptr<Outbox> outbox_;
  ClientRequests requests_;
  mutable std::mutex mu_;
  std::map<std::string, std::stop_source> in_flight_;  // by request id (as JSON text)
  std::map<std::string, std::function<void()>> stdio_listens_;  // subscriptions/listen on stdio, by request id
  std::shared_ptr<ListenRegistry> listens_ = std::make_shared<ListenRegistry>();
  json client_caps_ = json::object();
  int log_rank_ = -1;  // no log messages until the client sets a level
};

void SessionCall::log(std::string_view level, const json& data) {
  if (!session_.logs_at(level)) return;
  notify_(notification("notifications/message", {{"level", std::string(level)}, {"logger", "keel"}, {"data", data}}));
}

Result<json> SessionCall::ask_client(const std::string& method, const json& params, std::chrono::milliseconds timeout) {
  std::string capability = mcp_capability_for(method);
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
