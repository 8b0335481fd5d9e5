// The MCP Streamable HTTP endpoint; see mcp_http_endpoint.hpp.
//
// The io thread only checks headers (Host/Origin, token, Accept, Content-Type) and hands the
// POST to a worker; JSON parsing, session lookup and the handler run there, and the worker
// answers through the responder. So a slow tool call holds a worker, never the event loop.
#include "mcp_server/mcp_http_endpoint.hpp"

#include <atomic>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/text/text_util.hpp"
#include "mcp_server/mcp_http_guard.hpp"
#include "mcp_server/mcp_http_sessions.hpp"
#include "mcp_server/jsonrpc_reply.hpp"
#include "mcp_server/request_meta.hpp"
#include "server/bearer_token.hpp"
#include "server/host_origin_policy.hpp"
#include "server/http_responder.hpp"
#include "base/thread_pool.hpp"

namespace keel::mcp {

using nlohmann::json;
using server::HttpHeaders;
using server::HttpRequest;
using server::HttpResponder;

namespace detail {

struct McpEndpointState {
  McpEndpointState(McpHttpEndpointOptions o, MessageHandlerFactory f, server::HostOriginPolicy h)
      : options(std::move(o)),
        factory(std::move(f)),
        hosts(std::move(h)),
        sessions(options.max_sessions, options.session_idle_timeout) {}

  const McpHttpEndpointOptions options;
  const MessageHandlerFactory factory;
  const server::HostOriginPolicy hosts;
  McpSessionTable sessions;
  std::atomic<bool> closed{false};
  // Serves every request of the 2026-07-28 revision (no session: each request stands alone);
  // made at the first such request.
  std::once_flag stateless_once;
  std::shared_ptr<McpSession> stateless;
  std::mutex pool_mu;
  std::unique_ptr<keel::detail::ThreadPool> pool;  // guarded by pool_mu; null once the endpoint is gone
};

}  // namespace detail

namespace {

using detail::McpEndpointState;
using detail::McpSession;

constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kInternalError = -32603;
constexpr int kServerError = -32000;  // transport-level refusals (SDK convention)
constexpr int kSessionNotFound = -32001;

std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::chrono::steady_clock::time_point now() {
  return std::chrono::steady_clock::now();
}

json error_response(const json& id, int code, std::string_view message) {
  json error;
  error["jsonrpc"] = "2.0";
  error["id"] = id;
  error["error"]["code"] = code;
  error["error"]["message"] = message;
  return error;
}

// A transport-level refusal: HTTP `status` with a JSON-RPC error body (id null).
void rpc_error(HttpResponder& out, int status, int code, std::string_view message, HttpHeaders headers = {}) {
  server::respond_json(out, status, dump(error_response(nullptr, code, message)), std::move(headers));
}

enum class Kind { kRequest, kNotification, kResponse, kInvalid };

Kind classify(const json& m) {
  auto version = m.find("jsonrpc");
  if (version == m.end() || *version != "2.0") return Kind::kInvalid;
  auto id = m.find("id");
  const bool good_id = id != m.end() && (id->is_string() || id->is_number_integer() || id->is_number_unsigned());
  auto method = m.find("method");
  if (method != m.end()) {
    if (!method->is_string()) return Kind::kInvalid;
    if (id == m.end()) return Kind::kNotification;
    return good_id ? Kind::kRequest : Kind::kInvalid;
  }
  if (good_id && (m.contains("result") != m.contains("error"))) return Kind::kResponse;
  return Kind::kInvalid;
}


// What a worker needs of a POST (the HttpRequest itself lives only during the io-thread call).
struct PostJob {
  std::string body;
  std::string session_id;  // Mcp-Session-Id, "" when absent
  bool has_version = false;
  std::string version;  // MCP-Protocol-Version
  bool accepts_sse = false;
  detail::MirroredHeaders mirrored;  // Mcp-Method and Mcp-Name
  std::shared_ptr<HttpResponder> out;
};

// Unmarks a session as in use when a request is done with it.
class SessionUse {
 public:
  SessionUse(McpEndpointState& state, std::shared_ptr<McpSession> session)
      : state_(state), session_(std::move(session)) {}
  ~SessionUse() { state_.sessions.release(*session_, now()); }
  SessionUse(const SessionUse&) = delete;
  SessionUse& operator=(const SessionUse&) = delete;
  McpSession& operator*() const { return *session_; }

 private:
  McpEndpointState& state_;
  std::shared_ptr<McpSession> session_;
};

// Runs a request through `session`'s handler and answers it: as JSON, or as an SSE stream once the
// handler sends a notification (when the client accepts one). `finish` may change the response
// (and the headers of a JSON answer) before it is sent.
void answer_request(McpSession& session, const json& message, PostJob& job, HttpHeaders headers,
                    const std::function<void(json& response, HttpHeaders& headers, int& status)>& finish,
                    std::stop_token cancelled = {}) {
  HttpResponder& out = *job.out;
  bool streaming = false;
  auto send_event = [&](const json& m) {
    // Event ids serve resumption within a session; the stateless revision has neither.
    std::string event = "event: message\n";
    if (!session.id.empty()) event.append("id: ").append(std::to_string(session.next_event_id.fetch_add(1))).append("\n");
    event.append("data: ").append(dump(m)).append("\n\n");
    out.write(std::move(event));
  };
  const MessageHandler::Notify notify = [&](const json& m) {
    if (!job.accepts_sse) return;  // the client cannot take a stream: notifications are dropped
    if (!streaming) {
      HttpHeaders stream_headers = headers;
      stream_headers.emplace_back("Content-Type", "text/event-stream");
      stream_headers.emplace_back("Cache-Control", "no-cache");
      out.start_stream(200, std::move(stream_headers));
      streaming = true;
    }
    send_event(m);
  };
  std::optional<json> response;
  try {
    response = session.handler->handle_cancellable(message, notify, std::move(cancelled));
  } catch (...) {
    // The contract says handle() never throws; a broken handler still gets a well-formed answer.
    response.reset();
  }
  if (!response)
    response = error_response(message.at("id"), kInternalError, "the server produced no response to this request");
  int status = 200;
  finish(*response, headers, status);
  if (streaming) {
    send_event(*response);
    out.end();
    return;
  }
  server::respond_json(out, status, dump(*response), std::move(headers));
}

void run_initialize(McpEndpointState& state, const json& message, PostJob& job) {
  Result<std::string> id = detail::new_session_id();
  if (!id.ok()) {
    rpc_error(*job.out, 500, kInternalError, id.status().message());
    return;
  }
  auto session = std::make_shared<McpSession>();
  session->id = *id;
  if (state.factory) session->handler = state.factory();
  if (!session->handler) {
    rpc_error(*job.out, 500, kInternalError, "the MCP server could not create a session handler");
    return;
  }
  // The id goes out with a stream's head already; a JSON answer carries it only when the session
  // was opened (the handler accepted initialize and the table had room).
  answer_request(*session, message, job, {{"Mcp-Session-Id", *id}}, [&](json& response, HttpHeaders& headers, int&) {
    bool opened = false;
    if (response.contains("result")) {
      opened = state.sessions.add(session, now());
      if (!opened) {
        response = error_response(message.at("id"), kServerError,
                                  "too many MCP sessions are busy; retry later or end unused sessions (DELETE)");
      }
    }
    if (!opened) headers.clear();
  });
}

std::shared_ptr<McpSession> stateless_session(McpEndpointState& state) {
  std::call_once(state.stateless_once, [&] {
    auto session = std::make_shared<McpSession>();
    if (state.factory) session->handler = state.factory();
    if (session->handler) state.stateless = std::move(session);
  });
  return state.stateless;
}

// subscriptions/listen: an SSE stream that stays open with the notifications the client opted in
// to; it ends when the client closes it.
void run_listen(McpSession& session, const json& message, PostJob& job) {
  std::weak_ptr<HttpResponder> weak_out = job.out;
  auto mu = std::make_shared<std::mutex>();
  auto started = std::make_shared<bool>(false);
  MessageHandler::Listen opened = session.handler->listen(message, [weak_out, mu, started](const json& m) {
    std::lock_guard lock(*mu);
    auto out = weak_out.lock();
    if (!out || out->closed()) return;
    if (!*started) {
      out->start_stream(200, {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}});
      *started = true;
    }
    std::string event = "event: message\ndata: ";
    event.append(dump(m)).append("\n\n");
    out->write(std::move(event));
  });
  if (opened.error) {
    server::respond_json(*job.out, detail::stateless_status(*opened.error) == 200 ? 400 : detail::stateless_status(*opened.error),
                         dump(*opened.error));
    return;
  }
  if (opened.close) job.out->on_close(std::move(opened.close));
}

void run_stateless(McpEndpointState& state, const json& message, Kind kind, PostJob& job) {
  HttpResponder& out = *job.out;
  if (kind != Kind::kRequest) {  // the revision defines no client notifications over HTTP
    out.respond(202, {}, "");
    return;
  }
  const json& id = message["id"];
  const json params = message.value("params", json());
  auto refuse = [&](int code, const std::string& text, json data = nullptr) {
    json error = {{"code", code}, {"message", text}};
    if (!data.is_null()) error["data"] = std::move(data);
    server::respond_json(out, 400, dump({{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(error)}}));
  };
  if (!job.has_version) {
    refuse(kRpcHeaderMismatch, "Bad Request: MCP 2026-07-28 needs the MCP-Protocol-Version header on every POST, "
                               "equal to params._meta's io.modelcontextprotocol/protocolVersion");
    return;
  }
  std::optional<json> refused = check_stateless_meta(id, params);
  if (refused && (*refused)["error"]["code"] != kRpcUnsupportedVersion) {
    server::respond_json(out, 400, dump(*refused));
    return;
  }
  const std::string meta_version = params["_meta"][kMetaProtocolVersion].get<std::string>();
  if (meta_version != job.version) {
    refuse(kRpcHeaderMismatch, "Bad Request: the MCP-Protocol-Version header ('" + job.version +
                                   "') differs from params._meta's protocol version ('" + meta_version + "')");
    return;
  }
  if (refused) {
    server::respond_json(out, 400, dump(*refused));
    return;
  }
  if (std::string mismatch = detail::mirrored_header_mismatch(message["method"].get<std::string>(), params, job.mirrored);
      !mismatch.empty()) {
    refuse(kRpcHeaderMismatch, "Header mismatch: " + mismatch);
    return;
  }
  std::shared_ptr<McpSession> session = stateless_session(state);
  if (!session) {
    rpc_error(out, 500, kInternalError, "the MCP server could not create a request handler");
    return;
  }
  if (message["method"] == "subscriptions/listen") {
    run_listen(*session, message, job);
    return;
  }
  // The revision's cancellation: the client closing its response stream stops the request.
  std::stop_source cancel;
  job.out->on_close([cancel]() mutable { cancel.request_stop(); });
  answer_request(
      *session, message, job, {}, [](json& response, HttpHeaders&, int& status) { status = detail::stateless_status(response); },
      cancel.get_token());
}

void run_post(McpEndpointState& state, PostJob& job) {
  HttpResponder& out = *job.out;
  json message;
  try {
    message = json::parse(job.body);
  } catch (const json::exception& e) {
    std::string msg = "Parse error: the body is not valid JSON: ";
    msg.append(e.what());
    rpc_error(out, 400, kParseError, msg);
    return;
  }
  if (message.is_array()) {
    rpc_error(out, 400, kInvalidRequest, "batching is not supported: send one JSON-RPC message per POST");
    return;
  }
  const Kind kind = message.is_object() ? classify(message) : Kind::kInvalid;
  if (kind == Kind::kInvalid) {
    rpc_error(out, 400, kInvalidRequest,
              "Invalid Request: the body must be one JSON-RPC 2.0 request, notification or response object");
    return;
  }
  if (job.session_id.empty() && detail::is_stateless_request(message, job.has_version, job.version)) {
    run_stateless(state, message, kind, job);
    return;
  }
  if (kind == Kind::kRequest && message["method"] == "initialize") {
    run_initialize(state, message, job);
    return;
  }
  if (job.session_id.empty()) {
    rpc_error(out, 400, kServerError,
              "Bad Request: missing Mcp-Session-Id header; send the id from the initialize response");
    return;
  }
  if (job.has_version && !detail::is_supported_protocol_version(job.version)) {
    std::string msg = "Bad Request: unsupported MCP-Protocol-Version '";
    msg.append(job.version).append("'; supported: 2025-03-26, 2025-06-18, 2025-11-25");
    rpc_error(out, 400, kServerError, msg);
    return;
  }
  std::shared_ptr<McpSession> found = state.sessions.acquire(job.session_id, now());
  if (!found) {
    rpc_error(out, 404, kSessionNotFound, "Session not found: it ended or expired; send initialize to start a new one");
    return;
  }
  SessionUse session(state, std::move(found));
  if (kind != Kind::kRequest) {
    try {
      (void)(*session).handler->handle(message, [](const json&) {});
    } catch (...) {
      // See answer_request: the client still gets its 202.
    }
    out.respond(202, {}, "");
    return;
  }
  answer_request(*session, message, job, {{"Mcp-Session-Id", job.session_id}}, [](json&, HttpHeaders&, int&) {});
}

void run_delete(McpEndpointState& state, const std::string& id, HttpResponder& out) {
  if (id.empty()) {
    rpc_error(out, 400, kServerError, "Bad Request: missing Mcp-Session-Id header");
    return;
  }
  if (!state.sessions.remove(id)) {
    rpc_error(out, 404, kSessionNotFound, "Session not found: it ended or expired");
    return;
  }
  out.respond(200, {}, "");
}

// GET: the session's stream for messages tied to no request (resource updates). A newer GET
// replaces an older one, which is ended; the stream ends with the session.
void open_standalone_stream(McpEndpointState& state, const HttpRequest& req, std::shared_ptr<HttpResponder> out) {
  if (!detail::accepts_media_type(req.header("accept"), "text/event-stream")) {
    rpc_error(*out, 406, kServerError, "Not Acceptable: a GET stream needs an Accept header listing text/event-stream");
    return;
  }
  const std::string id(req.header("mcp-session-id"));
  if (id.empty()) {
    rpc_error(*out, 400, kServerError, "Bad Request: missing Mcp-Session-Id header; send the id from the initialize response");
    return;
  }
  std::shared_ptr<McpSession> session = state.sessions.acquire(id, now());
  if (!session) {
    rpc_error(*out, 404, kSessionNotFound, "Session not found: it ended or expired; send initialize to start a new one");
    return;
  }
  out->start_stream(200, {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}, {"Mcp-Session-Id", id}});
  std::weak_ptr<McpSession> weak = session;
  std::function<void()> previous_end;
  uint64_t generation = 0;
  {
    std::lock_guard lock(session->stream_mu);
    generation = ++session->stream_generation;
    previous_end = std::exchange(session->end_stream, [out] { out->end(); });
  }
  if (previous_end) previous_end();
  std::weak_ptr<HttpResponder> weak_out = out;
  session->handler->set_outbox([weak, weak_out](const json& m) {
    auto s = weak.lock();
    auto o = weak_out.lock();
    if (!s || !o || o->closed()) return;
    std::string event = "event: message\nid: ";
    event.append(std::to_string(s->next_event_id.fetch_add(1))).append("\ndata: ").append(dump(m)).append("\n\n");
    o->write(std::move(event));
  });
  out->on_close([weak, generation] {
    auto s = weak.lock();
    if (!s) return;
    std::lock_guard lock(s->stream_mu);
    if (s->stream_generation == generation) s->end_stream = nullptr;  // else a newer stream took over
  });
  state.sessions.release(*session, now());
}

// Runs `work` on a worker; 503 when the endpoint is gone.
template <class Work>
void submit(const std::shared_ptr<McpEndpointState>& state, const std::shared_ptr<HttpResponder>& out, Work work) {
  std::lock_guard lock(state->pool_mu);
  if (!state->pool) {
    rpc_error(*out, 503, kServerError, "the MCP endpoint is shutting down");
    return;
  }
  state->pool->submit(std::move(work));
}

// The io-thread part of every request: the checks that need only headers.
void serve(const std::shared_ptr<McpEndpointState>& state, const HttpRequest& req, std::shared_ptr<HttpResponder> out) {
  if (state->closed.load()) {
    rpc_error(*out, 503, kServerError, "the MCP endpoint is shutting down");
    return;
  }
  std::string refused = server::check_host(state->hosts, req.header("host"));
  if (refused.empty() && req.has_header("origin")) {
    refused = server::check_origin(state->hosts, req.header("host"), req.header("origin"));
  }
  if (!refused.empty()) {
    std::string msg = "Forbidden: ";
    msg.append(refused);
    rpc_error(*out, 403, kServerError, msg);
    return;
  }
  const std::string& token = state->options.bearer_token;
  if (!token.empty() && !server::same_secret(server::bearer_credential(req.header("authorization")), token)) {
    const bool sent = req.has_header("authorization");
    rpc_error(*out, 401, kServerError,
              sent ? "Unauthorized: the bearer token is not valid" : "Unauthorized: send Authorization: Bearer <token>",
              {{"WWW-Authenticate", sent ? R"(Bearer error="invalid_token")" : "Bearer"}});
    return;
  }
  if (req.method == "GET") {
    open_standalone_stream(*state, req, std::move(out));
    return;
  }
  if (req.method == "DELETE") {
    // On a worker too: ending a session may run its handler's destructor.
    submit(state, out, [state, out, id = std::string(req.header("mcp-session-id"))] { run_delete(*state, id, *out); });
    return;
  }
  const std::string_view accept = req.header("accept");
  if (!detail::accepts_media_type(accept, "application/json") ||
      !detail::accepts_media_type(accept, "text/event-stream")) {
    rpc_error(*out, 406, kServerError,
              "Not Acceptable: the Accept header must list application/json and text/event-stream");
    return;
  }
  if (!keel::detail::starts_with_ascii_icase(req.header("content-type"), "application/json")) {
    rpc_error(*out, 415, kServerError, "Unsupported Media Type: the body must be sent as application/json");
    return;
  }
  auto job = std::make_shared<PostJob>();
  job->body = req.body;
  job->session_id = std::string(req.header("mcp-session-id"));
  job->has_version = req.has_header("mcp-protocol-version");
  job->version = std::string(req.header("mcp-protocol-version"));
  job->accepts_sse = true;  // checked above
  if (req.has_header("mcp-method")) job->mirrored.method = std::string(req.header("mcp-method"));
  if (req.has_header("mcp-name")) job->mirrored.name = std::string(req.header("mcp-name"));
  job->out = out;
  submit(state, out, [state, job] { run_post(*state, *job); });
}

}  // namespace

Result<std::unique_ptr<McpHttpEndpoint>> McpHttpEndpoint::mount(server::HttpServer& server,
                                                                MessageHandlerFactory factory,
                                                                McpHttpEndpointOptions options) {
  if (options.path.empty() || options.path.front() != '/') {
    std::string msg = "the MCP endpoint path must start with '/': '";
    msg.append(options.path).append("'");
    return Status::InvalidArgument(std::move(msg));
  }
  if (!factory) return Status::InvalidArgument("the MCP endpoint needs a session handler factory");
  server::HostOriginPolicy hosts =
      server::make_host_origin_policy(server.options().host, options.allowed_hosts, options.allowed_origins);
  auto state = std::make_shared<McpEndpointState>(std::move(options), std::move(factory), std::move(hosts));
  keel::detail::ThreadPool::Options pool;
  pool.threads = state->options.worker_threads == 0 ? 1 : state->options.worker_threads;
  pool.max_threads = pool.threads;
  state->pool = std::make_unique<keel::detail::ThreadPool>(pool);
  const auto handler = [state](const HttpRequest& req, std::shared_ptr<HttpResponder> out) {
    serve(state, req, std::move(out));
  };
  for (const char* method : {"POST", "GET", "DELETE"}) server.route(method, state->options.path, handler);
  return std::unique_ptr<McpHttpEndpoint>(new McpHttpEndpoint(std::move(state)));
}

McpHttpEndpoint::McpHttpEndpoint(std::shared_ptr<McpEndpointState> state) : state_(std::move(state)) {}

McpHttpEndpoint::~McpHttpEndpoint() {
  state_->closed.store(true);
  std::unique_ptr<keel::detail::ThreadPool> pool;
  {
    std::lock_guard lock(state_->pool_mu);
    pool = std::move(state_->pool);
  }
  pool.reset();  // queued requests are dropped (their clients get 500); running ones finish
  state_->sessions.clear();
  state_->stateless.reset();
}

size_t McpHttpEndpoint::session_count() const {
  return state_->sessions.size();
}

}  // namespace keel::mcp
