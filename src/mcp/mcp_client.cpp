// McpClient: JSON-RPC over a Transport — request ids, waiting for responses (with timeouts, stop
// tokens and notifications/cancelled), the initialize handshake, and the server's own requests
// (ping, elicitation) and notifications (list_changed, logging, progress).
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>

#include "base/clock.hpp"
#include "keel/mcp.hpp"
#include "mcp/client_connect.hpp"
#include "mcp/elicitation_defaults.hpp"

#ifndef KEEL_VERSION
#define KEEL_VERSION "0"
#endif

namespace keel {

using nlohmann::json;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

namespace mcp {

bool supported_protocol_version(std::string_view version) {
  for (const char* v : kProtocolVersions) {
    if (version == v) return true;
  }
  return false;
}

}  // namespace mcp

namespace {

// The status for a JSON-RPC error object from the server.
Status rpc_error_status(const std::string& server, const std::string& method, const json& error) {
  int64_t code = 0;
  std::string message = "(no message)";
  if (error.is_object()) {
    if (auto c = error.find("code"); c != error.end() && c->is_number_integer()) code = c->get<int64_t>();
    if (auto m = error.find("message"); m != error.end() && m->is_string()) message = m->get<std::string>();
  }
  std::string text = "MCP server '" + server + "' answered " + method + " with error " + std::to_string(code) + ": " +
                     message;
  if (code == -32601) return Status::NotFound(text);
  if (code == -32002) return Status::NotFound(text);  // resource not found
  return Status::InvalidArgument(text);
}

}  // namespace

class McpClient::Impl {
 public:
  Impl(McpServerConfig config, std::unique_ptr<mcp::Transport> transport, McpClientHooks hooks)
      : config_(std::move(config)), hooks_(std::move(hooks)), transport_(std::move(transport)) {}

  ~Impl() { close(); }

  Status start() {
    mcp::TransportCallbacks callbacks;
    callbacks.on_message = [this](json message) { on_message(std::move(message)); };
    callbacks.on_garbage = [this](std::string detail) { log(detail); };
    callbacks.on_closed = [this](Status why) { on_closed(std::move(why)); };
    callbacks.on_log = [this](std::string line) { log(line); };
    Clock::time_point deadline = keel::detail::deadline_after_ms(config_.startup_timeout_ms);
    KEEL_TRY(transport_->start(std::move(callbacks), milliseconds(config_.startup_timeout_ms)));

    json params = {{"protocolVersion", mcp::kProtocolVersions[0]},
                   {"capabilities", {{"elicitation", json::object()}}},
                   {"clientInfo", {{"name", "keel"}, {"version", KEEL_VERSION}}}};
    milliseconds left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() < 1) left = milliseconds(1);
    Result<json> result = request("initialize", std::move(params), {}, left);
    if (!result.ok()) {
      Status s = result.status();
      if (s.code() == ErrorCode::kDeadlineExceeded) {
        return Status::DeadlineExceeded("MCP server '" + config_.name + "' (" + transport_->describe() +
                                        ") did not finish starting within " + std::to_string(config_.startup_timeout_ms) +
                                        " ms (startup_timeout_ms)");
      }
      return s;
    }
    std::string version = result->value("protocolVersion", "");
    if (!mcp::supported_protocol_version(version)) {
      return Status::FailedPrecondition("MCP server '" + config_.name + "' speaks protocol version \"" + version +
                                        "\", which keel does not support (2025-11-25, 2025-06-18, 2025-03-26, "
                                        "2024-11-05)");
    }
    protocol_version_ = version;
    server_info_ = result->value("serverInfo", json::object());
    capabilities_ = result->value("capabilities", json::object());
    transport_->set_protocol_version(version);
    KEEL_TRY(notify("notifications/initialized", json::object()));
    // Server requests (elicitation) and list_changed may come outside any request's response.
    transport_->open_listen_stream();
    return Status::Ok();
  }

  Result<json> request(const std::string& method, json params, std::stop_token stop, milliseconds timeout) {
    if (timeout.count() <= 0) timeout = milliseconds(config_.call_timeout_ms);
    auto pending = std::make_shared<Pending>();
    int64_t id = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_) return closed_why_;
      id = next_id_++;
      pending_[id] = pending;
    }
    json message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.is_null()) message["params"] = std::move(params);
    Clock::time_point deadline = Clock::now() + timeout;

    mcp::SendOptions options;
    options.timeout = timeout;
    options.stop = stop;
    options.awaiting_response = [this, pending] {
      std::lock_guard<std::mutex> lock(mu_);
      return !pending->done && !closed_;
    };
    Status sent = transport_->send(message, options);
    if (!sent.ok()) {
      forget(id);
      if (sent.code() == ErrorCode::kDeadlineExceeded || sent.code() == ErrorCode::kCancelled) cancel(id, sent.message());
      return with_context(method, sent);
    }

    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_until(lock, stop, deadline, [&] { return pending->done || closed_; });
    if (pending->done) {
      pending_.erase(id);
      json response = std::move(pending->response);
      lock.unlock();
      if (auto e = response.find("error"); e != response.end()) return rpc_error_status(config_.name, method, *e);
      auto r = response.find("result");
      if (r == response.end() || !r->is_object()) {
        return Status::InvalidArgument("MCP server '" + config_.name + "' sent a malformed " + method +
                                       " response (no result object): " + response.dump().substr(0, 200));
      }
      return std::move(*r);
    }
    pending_.erase(id);
    if (closed_) return closed_why_;
    lock.unlock();
    if (stop.stop_requested()) {
      cancel(id, "cancelled by keel");
      return Status::Cancelled(method + " to MCP server '" + config_.name + "' was cancelled");
    }
    cancel(id, "timed out");
    return Status::DeadlineExceeded("MCP server '" + config_.name + "' did not answer " + method + " within " +
                                    std::to_string(timeout.count()) + " ms");
  }

  Status notify(const std::string& method, json params) {
    json message = {{"jsonrpc", "2.0"}, {"method", method}};
    if (!params.is_null()) message["params"] = std::move(params);
    mcp::SendOptions options;
    options.timeout = milliseconds(std::min<int64_t>(config_.call_timeout_ms, 10000));
    return transport_->send(message, options);
  }

  void close() {
    bool expected = false;
    if (!close_requested_.compare_exchange_strong(expected, true)) return;
    transport_->close(milliseconds(2000));
    std::lock_guard<std::mutex> lock(mu_);
    if (!closed_) {
      closed_ = true;
      closed_why_ = Status::Unavailable("MCP server '" + config_.name + "' was closed");
    }
    cv_.notify_all();
  }

  bool alive() const {
    std::lock_guard<std::mutex> lock(mu_);
    return !closed_;
  }

  McpServerConfig config_;
  McpClientHooks hooks_;
  std::unique_ptr<mcp::Transport> transport_;
  std::string protocol_version_;
  json server_info_ = json::object();
  json capabilities_ = json::object();
  std::atomic<bool> tools_changed_{false};

 private:
  struct Pending {
    bool done = false;
    json response;
  };

  Status with_context(const std::string& method, const Status& s) const {
    if (s.message().find(config_.name) != std::string::npos) return s;
    return Status(s.code(), "MCP server '" + config_.name + "' (" + method + "): " + s.message());
  }

  void forget(int64_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.erase(id);
  }

  // Tells the server to stop working on request `id` (best effort; never waits long).
  void cancel(int64_t id, const std::string& reason) {
    if (!alive()) return;
    json message = {{"jsonrpc", "2.0"},
                    {"method", "notifications/cancelled"},
                    {"params", {{"requestId", id}, {"reason", reason}}}};
    mcp::SendOptions options;
    options.timeout = milliseconds(1000);
    (void)transport_->send(message, options);
  }

  void log(std::string_view line) {
    if (hooks_.on_log) hooks_.on_log(config_.name, line);
  }

  void on_closed(Status why) {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    closed_ = true;
    closed_why_ = why.ok() ? Status::Unavailable("MCP server '" + config_.name + "' closed the connection") : why;
    cv_.notify_all();
  }

  void on_message(json message) {
    if (!message.is_object()) {
      log("ignored a message that is not a JSON object: " + message.dump().substr(0, 200));
      return;
    }
    auto method = message.find("method");
    auto id = message.find("id");
    if (method == message.end()) {
      if (id == message.end() || !id->is_number_integer()) {
        log("ignored a response with an id keel never used: " + message.dump().substr(0, 200));
        return;
      }
      std::lock_guard<std::mutex> lock(mu_);
      auto it = pending_.find(id->get<int64_t>());
      if (it == pending_.end()) return;  // answered after a timeout or cancellation
      it->second->response = std::move(message);
      it->second->done = true;
      cv_.notify_all();
      return;
    }
    if (!method->is_string()) return;
    const std::string name = method->get<std::string>();
    json params = message.value("params", json::object());
    if (id != message.end()) {
      answer_server_request(*id, name, params);
      return;
    }
    if (name == "notifications/tools/list_changed") {
      tools_changed_ = true;
    } else if (name == "notifications/message") {
      std::string data = params.contains("data") ? (params["data"].is_string() ? params["data"].get<std::string>()
                                                                                  : params["data"].dump())
                                                 : std::string();
      log("[" + params.value("level", std::string("info")) + "] " + data);
    } else if (name == "notifications/progress") {
      if (hooks_.on_progress) hooks_.on_progress(config_.name, params);
    } else if (name == "notifications/resources/updated") {
      if (hooks_.on_resource_updated && params.contains("uri") && params["uri"].is_string()) {
        hooks_.on_resource_updated(config_.name, params["uri"].get<std::string>());
      }
    }
  }

  void answer_server_request(const json& id, const std::string& method, const json& params) {
    json response = {{"jsonrpc", "2.0"}, {"id", id}};
    if (method == "ping") {
      response["result"] = json::object();
    } else if (method == "elicitation/create") {
      response["result"] = hooks_.on_elicitation ? hooks_.on_elicitation(config_.name, params)
                                                 : mcp::answer_with_defaults(params);
    } else {
      response["error"] = {{"code", -32601}, {"message", "keel does not support " + method}};
    }
    mcp::SendOptions options;
    options.timeout = milliseconds(10000);
    Status s = transport_->send(response, options);
    if (!s.ok()) log("could not answer " + method + ": " + s.message());
  }

  mutable std::mutex mu_;
  std::condition_variable_any cv_;
  std::map<int64_t, std::shared_ptr<Pending>> pending_;
  int64_t next_id_ = 1;
  bool closed_ = false;
  Status closed_why_;
  std::atomic<bool> close_requested_{false};
};

namespace mcp {

Result<std::unique_ptr<McpClient>> connect_client(const McpServerConfig& config, std::unique_ptr<Transport> transport,
                                                  McpClientHooks hooks) {
  if (!transport) return Status::InvalidArgument("MCP server '" + config.name + "': no transport for this configuration");
  auto impl = std::make_unique<McpClient::Impl>(config, std::move(transport), std::move(hooks));
  Status started = impl->start();
  if (!started.ok()) {
    impl->close();
    return started;
  }
  return std::unique_ptr<McpClient>(new McpClient(std::move(impl)));
}

}  // namespace mcp

Result<std::unique_ptr<McpClient>> McpClient::connect(const McpServerConfig& config, McpClientHooks hooks) {
  auto transport = mcp::make_transport(config, hooks);
  return mcp::connect_client(config, std::move(transport), std::move(hooks));
}

McpClient::McpClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
McpClient::~McpClient() = default;

const std::string& McpClient::name() const { return impl_->config_.name; }
const std::string& McpClient::protocol_version() const { return impl_->protocol_version_; }
const json& McpClient::server_info() const { return impl_->server_info_; }
const json& McpClient::server_capabilities() const { return impl_->capabilities_; }
std::string McpClient::describe() const { return impl_->transport_->describe(); }
bool McpClient::alive() const { return impl_->alive(); }
bool McpClient::tools_changed() const { return impl_->tools_changed_; }
void McpClient::close() { impl_->close(); }

Result<json> McpClient::request(const std::string& method, json params, std::stop_token stop, milliseconds timeout) {
  return impl_->request(method, std::move(params), stop, timeout);
}

Status McpClient::ping(std::stop_token stop) {
  Result<json> r = request("ping", json::object(), stop);
  return r.ok() ? Status::Ok() : r.status();
}

}  // namespace keel
