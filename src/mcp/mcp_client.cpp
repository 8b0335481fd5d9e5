// McpClient: JSON-RPC over a Transport — request ids, waiting for responses (with timeouts, stop
// tokens and notifications/cancelled), the era (a server/discover probe for the stateless revision,
// else the initialize handshake), multi round-trip requests, and the server's own requests (ping,
// elicitation) and notifications (list_changed, logging, progress).
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>

#include "base/clock.hpp"
#include "keel/mcp.hpp"
#include "mcp/client_connect.hpp"
#include "mcp/elicitation_defaults.hpp"
#include "mcp/mcp_param_headers.hpp"
#include "mcp/resource_listener.hpp"
#include "mcp/rpc_error.hpp"
#include "mcp/stateless_era.hpp"

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

class McpClient::Impl {
 public:
  Impl(McpServerConfig config, std::unique_ptr<mcp::Transport> transport, McpClientHooks hooks)
      : config_(std::move(config)), hooks_(std::move(hooks)), transport_(std::move(transport)),
        listener_(*transport_, [this] { return take_id(); }, [this](json& params) { add_meta(params); }) {}

  ~Impl() { close(); }

  // Starts a client over `transport`; `probe_ended_connection` (optional) tells whether a stdio
  // server ended its process on the server/discover probe.
  static Result<std::unique_ptr<McpClient>> connect(const McpServerConfig& config,
                                                    std::unique_ptr<mcp::Transport> transport, McpClientHooks hooks,
                                                    bool* probe_ended_connection);

  Status start() {
    mcp::TransportCallbacks callbacks;
    callbacks.on_message = [this](json message) { on_message(std::move(message)); };
    callbacks.on_garbage = [this](std::string detail) { log(detail); };
    callbacks.on_closed = [this](Status why) { on_closed(std::move(why)); };
    callbacks.on_log = [this](std::string line) { log(line); };
    Clock::time_point deadline = keel::detail::deadline_after_ms(config_.startup_timeout_ms);
    KEEL_TRY(transport_->start(std::move(callbacks), milliseconds(config_.startup_timeout_ms)));

    // The stateless revision first where it is wanted: a server/discover probe, which a
    // handshake-era server refuses (or, over stdio, leaves unanswered) and then gets the initialize
    // handshake instead. By default only over HTTP: over stdio a silent handshake-era server would
    // cost every start the probe's timeout, and some end their process on an unknown first
    // request, so stdio probes only when protocol_version says "auto" or pins 2026-07-28.
    const std::string& wanted = config_.protocol_version;
    const bool pinned_stateless = wanted == mcp::kStatelessVersion;
    const bool probe = wanted == "auto" || (wanted.empty() && config_.transport != McpTransportKind::kStdio);
    if (pinned_stateless || probe) {
      Status modern = start_stateless(deadline);
      if (modern.ok() || pinned_stateless || probe_verdict_ != mcp::ProbeVerdict::kHandshake) return modern;
      log("speaks no MCP 2026-07-28 (" + modern.message() + "); using the initialize handshake");
      transport_->set_protocol_version("");
    }

    const char* asked = mcp::supported_protocol_version(wanted) ? wanted.c_str() : mcp::kProtocolVersions[0];
    json params = {{"protocolVersion", asked},
                   {"capabilities", client_capabilities()},
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

  // server/discover with the stateless revision's _meta: on success the connection is stateless
  // (no initialize, no session; every request carries its own _meta). On failure probe_verdict_
  // says whether the handshake may follow.
  Status start_stateless(Clock::time_point deadline) {
    const bool stdio = config_.transport == McpTransportKind::kStdio;
    transport_->set_protocol_version(mcp::kStatelessVersion);
    stateless_ = true;  // the probe carries the revision's _meta
    Result<json> discovered = Status::Internal("no probe sent");
    for (int attempt = 0; attempt < 2; ++attempt) {
      milliseconds left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
      if (stdio && config_.protocol_version != mcp::kStatelessVersion) left = std::min(left, milliseconds(kStdioProbeTimeoutMs));
      if (left.count() < 1) left = milliseconds(1);
      json error;
      discovered = request("server/discover", json::object(), {}, left, {}, &error);
      if (discovered.ok()) break;
      stateless_ = false;
      probe_verdict_ = mcp::classify_probe_failure(discovered.status(), error, stdio);
      probe_ended_connection_ = stdio && !alive();
      if (probe_verdict_ != mcp::ProbeVerdict::kRetry) return discovered.status();
      stateless_ = true;
    }
    if (!discovered.ok()) {
      probe_verdict_ = mcp::ProbeVerdict::kFail;
      return discovered.status();
    }
    const json versions = discovered->value("supportedVersions", json());
    if (!mcp::lists_version(versions, mcp::kStatelessVersion)) {
      // No version list: not a discover result (a handshake server answering anything). A list
      // without 2026-07-28: the handshake only when it names a handshake version keel speaks.
      stateless_ = false;
      bool handshake = !versions.is_array();
      for (const char* v : mcp::kProtocolVersions) handshake = handshake || mcp::lists_version(versions, v);
      probe_verdict_ = handshake ? mcp::ProbeVerdict::kHandshake : mcp::ProbeVerdict::kFail;
      return Status::FailedPrecondition("MCP server '" + config_.name + "' does not offer protocol version " +
                                        mcp::kStatelessVersion + " (it offers " + versions.dump() + ")");
    }
    protocol_version_ = mcp::kStatelessVersion;
    capabilities_ = discovered->value("capabilities", json::object());
    const json meta = discovered->value("_meta", json::object());
    server_info_ = meta.is_object() ? meta.value("io.modelcontextprotocol/serverInfo", json()) : json();
    if (!server_info_.is_object()) server_info_ = discovered->value("serverInfo", json::object());
    if (!server_info_.is_object()) server_info_ = json::object();
    return Status::Ok();
  }

  // A request of a method that may answer input_required (tools/call, prompts/get,
  // resources/read): the server's input requests are answered (elicitation through the host's
  // hook) and the request sent again with them and the server's requestState, exactly as given,
  // for at most kMaxInputRounds rounds.
  Result<json> request_with_input(const std::string& method, json params, std::stop_token stop, milliseconds timeout,
                                  std::vector<std::string> headers = {}) {
    for (int round = 0;; ++round) {
      KEEL_ASSIGN_OR_RETURN(json result, request(method, params, stop, timeout, headers));
      if (!mcp::is_input_required(result)) return result;
      if (round == mcp::kMaxInputRounds) break;
      KEEL_TRY(mcp::prepare_input_retry(params, result, [&](const std::string& asked, const json& input) {
        return answer_input_request(method, asked, input);
      }));
    }
    return Status::FailedPrecondition("MCP server '" + config_.name + "' still asked for input after " +
                                      std::to_string(mcp::kMaxInputRounds) + " rounds of " + method +
                                      "; keel gave up on the request");
  }

  // What keel answers a server's request of `method` with, in either era: elicitation through
  // the host's hook (or the schema's defaults), sampling through the host's hook when it offers
  // one. nullopt for a method keel's client does not offer.
  std::optional<Result<json>> answer_client_method(const std::string& method, const json& params) {
    if (method == "elicitation/create") {
      return hooks_.on_elicitation ? hooks_.on_elicitation(config_.name, params) : mcp::answer_with_defaults(params);
    }
    if (method == "sampling/createMessage" && hooks_.on_sampling) return hooks_.on_sampling(config_.name, params);
    return std::nullopt;
  }

  Result<json> answer_input_request(const std::string& method, const std::string& asked, const json& params) {
    if (std::optional<Result<json>> answer = answer_client_method(asked, params)) {
      if (!answer->ok()) return with_context(method, answer->status());
      return std::move(*answer);
    }
    return Status::FailedPrecondition("MCP server '" + config_.name + "' asked keel for " +
                                      (asked.empty() ? std::string("an unnamed input") : asked) + " during " + method +
                                      ", which keel's client does not offer (it declares " +
                                      (hooks_.on_sampling ? "elicitation and sampling" : "elicitation only") + ")");
  }

  // One request; in the stateless revision with its _meta. `rpc_error` receives the server's
  // JSON-RPC error object when it answered with one.
  Result<json> request(const std::string& method, json params, std::stop_token stop, milliseconds timeout,
                       std::vector<std::string> headers = {}, json* rpc_error = nullptr) {
    if (stateless_) add_meta(params);
    return request_once(method, std::move(params), stop, timeout, std::move(headers), rpc_error);
  }

  void add_meta(json& params) const {
    mcp::add_stateless_meta(params, client_capabilities(), json{{"name", "keel"}, {"version", KEEL_VERSION}});
  }

  // Elicitation always (keel answers from defaults when nobody can be asked); sampling only when
  // the host offers a model for it.
  json client_capabilities() const {
    json capabilities = {{"elicitation", json::object()}};
    if (hooks_.on_sampling) capabilities["sampling"] = json::object();
    return capabilities;
  }

  int64_t take_id() {
    std::lock_guard<std::mutex> lock(mu_);
    return next_id_++;
  }

  Result<json> request_once(const std::string& method, json params, std::stop_token stop, milliseconds timeout,
                            std::vector<std::string> headers, json* rpc_error) {
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
    options.headers = std::move(headers);
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
      if (auto e = response.find("error"); e != response.end()) {
        if (rpc_error != nullptr) *rpc_error = *e;
        return mcp::rpc_error_status(config_.name, method, *e);
      }
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
    if (method != "server/discover") cancel(id, "timed out");  // a handshake server's probe: nothing to cancel
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
    listener_.close();
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

  // A stdio server that leaves the probe unanswered this long is taken for a handshake-era one.
  static constexpr int64_t kStdioProbeTimeoutMs = 3000;

  // A request as McpClient's methods make it. In the stateless revision: tools/call mirrors the
  // annotated arguments into Mcp-Param-* headers, calls that may need input get their rounds,
  // and tools/list leaves out tools whose x-mcp-header annotations are invalid (with a warning).
  Result<json> public_request(const std::string& method, json params, std::stop_token stop, milliseconds timeout) {
    if (!stateless_) return request(method, std::move(params), stop, timeout);
    if (method == "ping") return request("server/discover", json::object(), stop, timeout);  // no ping in 2026-07-28
    if (method == "resources/subscribe") {  // replaced by subscriptions/listen
      const std::string uri = params.is_object() ? params.value("uri", "") : "";
      KEEL_TRY(listener_.subscribe(uri, timeout.count() > 0 ? timeout : milliseconds(config_.call_timeout_ms), stop));
      return json::object();
    }
    if (method == "tools/call") {
      std::vector<std::string> headers;
      if (params.is_object() && params.contains("name") && params["name"].is_string()) {
        std::lock_guard<std::mutex> lock(mu_);
        auto schema = tool_schemas_.find(params["name"].get<std::string>());
        if (schema != tool_schemas_.end()) {
          headers = mcp::param_header_lines(schema->second, params.value("arguments", json::object()));
        }
      }
      return request_with_input(method, std::move(params), stop, timeout, std::move(headers));
    }
    if (method == "prompts/get" || method == "resources/read") {
      return request_with_input(method, std::move(params), stop, timeout);
    }
    Result<json> result = request(method, std::move(params), stop, timeout);
    if (result.ok() && method == "tools/list") {
      std::vector<std::string> left_out;
      {
        std::lock_guard<std::mutex> lock(mu_);
        left_out = mcp::keep_valid_tools(*result, tool_schemas_);
      }
      for (const std::string& why : left_out) log("warning: left out tool " + why);
    }
    return result;
  }

  McpServerConfig config_;
  McpClientHooks hooks_;
  bool stateless_ = false;  // the 2026-07-28 revision; settled during start()
  mcp::ProbeVerdict probe_verdict_ = mcp::ProbeVerdict::kFail;  // why the server/discover probe failed
  bool probe_ended_connection_ = false;  // a stdio server ended its process on the probe
  std::unique_ptr<mcp::Transport> transport_;
  mcp::ResourceListener listener_;  // stateless: resource subscriptions over subscriptions/listen
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
    if (listener_.consume(message)) return;
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
    } else if (std::optional<Result<json>> answer = answer_client_method(method, params); !answer) {
      response["error"] = {{"code", -32601}, {"message", "keel does not support " + method}};
    } else if (answer->ok()) {
      response["result"] = std::move(**answer);
    } else {
      response["error"] = mcp::rpc_error_object(answer->status());
    }
    mcp::SendOptions options;
    options.timeout = milliseconds(10000);
    Status s = transport_->send(response, options);
    if (!s.ok()) log("could not answer " + method + ": " + s.message());
  }

  mutable std::mutex mu_;
  std::condition_variable_any cv_;
  std::map<int64_t, std::shared_ptr<Pending>> pending_;
  std::map<std::string, json> tool_schemas_;  // stateless: each listed tool's inputSchema, for its Mcp-Param-* headers
  int64_t next_id_ = 1;
  bool closed_ = false;
  Status closed_why_;
  std::atomic<bool> close_requested_{false};
};

namespace mcp {

Result<std::unique_ptr<McpClient>> connect_client(const McpServerConfig& config, std::unique_ptr<Transport> transport,
                                                  McpClientHooks hooks) {
  return McpClient::Impl::connect(config, std::move(transport), std::move(hooks), nullptr);
}

}  // namespace mcp

Result<std::unique_ptr<McpClient>> McpClient::Impl::connect(const McpServerConfig& config,
                                                            std::unique_ptr<mcp::Transport> transport,
                                                            McpClientHooks hooks, bool* probe_ended_connection) {
  if (!transport) return Status::InvalidArgument("MCP server '" + config.name + "': no transport for this configuration");
  auto impl = std::make_unique<McpClient::Impl>(config, std::move(transport), std::move(hooks));
  Status started = impl->start();
  if (!started.ok()) {
    if (probe_ended_connection != nullptr) *probe_ended_connection = impl->probe_ended_connection_;
    impl->close();
    return started;
  }
  return std::unique_ptr<McpClient>(new McpClient(std::move(impl)));
}

Result<std::unique_ptr<McpClient>> McpClient::connect(const McpServerConfig& config, McpClientHooks hooks) {
  bool probe_ended = false;
  auto client = Impl::connect(config, mcp::make_transport(config, hooks), hooks, &probe_ended);
  if (client.ok() || !probe_ended) return client;
  // A stdio server of the handshake era that ends its process on an unknown first request: a new
  // one, spoken to with the handshake only.
  if (hooks.on_log) hooks.on_log(config.name, "ended its process on server/discover; restarting it for the handshake");
  McpServerConfig handshake = config;
  handshake.protocol_version = mcp::kProtocolVersions[0];
  return Impl::connect(handshake, mcp::make_transport(handshake, hooks), std::move(hooks), nullptr);
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
  return impl_->public_request(method, std::move(params), stop, timeout);
}

}  // namespace keel
