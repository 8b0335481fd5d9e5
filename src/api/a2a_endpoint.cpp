#include "api/a2a_endpoint.hpp"

#include <chrono>

#include "api/a2a_run_watch.hpp"
#include "api/a2a_task.hpp"
#include "api/a2a_v03.hpp"
#include "core/text/text_util.hpp"

namespace keel::api {
namespace {

using nlohmann::json;
using server::HttpRequest;
using server::HttpResponder;
using Ctx = std::shared_ptr<ApiContext>;
namespace a2a_ns = a2a;

constexpr const char* kRpcPath = "/a2a";
constexpr const char* kCardPath = "/.well-known/agent-card.json";
// How often a waiting request looks whether its client is still there.
constexpr std::chrono::milliseconds kPoll{1000};

struct A2aEndpoint {
  Ctx ctx;
  detail::ThreadPool& workers;
};

json rpc_error(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

void reply_rpc(const A2aEndpoint& e, const HttpRequest& req, HttpResponder& out, const json& body) {
  server::respond_json(out, 200, body.dump(-1, ' ', false, json::error_handler_t::replace), cors_headers(req, e.ctx->access));
}

void handle_card(const A2aEndpoint& e, const HttpRequest& req, HttpResponder& out) {
  const std::string host(req.header("Host"));  // the access guard admitted it
  const std::string url = "http://" + host + kRpcPath;
  json skills = json::array();
  for (const ProfileInfo& p : e.ctx->factory.profiles()) {
    skills.push_back({{"id", p.name},
                      {"name", p.name},
                      {"description", p.description.empty() ? "keel agent on " + p.model : p.description},
                      {"tags", json::array({"keel", p.model})},
                      {"examples", json::array()},
                      {"inputModes", json::array({"text/plain", "application/json"})},
                      {"outputModes", json::array({"text/plain"})}});
  }
  json card = {
      {"name", "keel"},
      {"description", "keel agent: runs tasks with tools in its workspace, asking for approval where its policy says so"},
      {"supportedInterfaces",
       json::array({{{"url", url}, {"protocolBinding", "JSONRPC"}, {"protocolVersion", a2a_ns::kProtocolVersion}},
                    {{"url", url}, {"protocolBinding", "JSONRPC"}, {"protocolVersion", a2a_ns::kV03ProtocolVersion}}})},
      // What a 0.3 client reads (1.0 clients read supportedInterfaces): the same endpoint.
      {"url", url},
      {"preferredTransport", "JSONRPC"},
      {"protocolVersion", a2a_ns::kV03ProtocolVersion},
      {"version", e.ctx->version},
      {"capabilities", {{"streaming", true}, {"pushNotifications", false}}},
      {"defaultInputModes", json::array({"text/plain", "application/json"})},
      {"defaultOutputModes", json::array({"text/plain"})},
      {"skills", std::move(skills)},
  };
  if (!e.ctx->access.token.empty()) {
    // The scheme in both versions' shapes: 1.0's oneof field, 0.3's "type" with its fields.
    card["securitySchemes"] = {{"bearer",
                                {{"httpAuthSecurityScheme", {{"scheme", "bearer"}, {"description", "keel serve's token"}}},
                                 {"type", "http"},
                                 {"scheme", "bearer"},
                                 {"description", "keel serve's token"}}}};
    card["securityRequirements"] = json::array({{{"schemes", {{"bearer", {{"list", json::array()}}}}}}});
    card["security"] = json::array({{{"bearer", json::array()}}});  // 0.3
  }
  reply_json(*e.ctx, req, out, 200, card);
}

// The task of run `id` as it is now, with what it waits for when it is parked.
Result<json> current_task(const A2aEndpoint& e, const std::string& id, bool history) {
  KEEL_ASSIGN_OR_RETURN(RunRecord run, e.ctx->scope.run(e.ctx->store, id));
  const std::optional<RunPhase> phase = e.ctx->runs.phase(id);
  const std::string waiting = a2a_ns::task_state(run.state, phase) == "TASK_STATE_INPUT_REQUIRED"
                                  ? a2a_ns::waiting_for(e.ctx->pending, id)
                                  : std::string();
  std::vector<StoredMessage> messages;
  if (history) {
    Result<std::vector<StoredMessage>> loaded = e.ctx->store.load_messages(run.session_id);
    if (loaded.ok()) messages = std::move(*loaded);
  }
  return a2a_ns::task_json(run, phase, waiting, history ? &messages : nullptr);
}

// Answers what run `run_id` waits for with `text`: its approvals ("yes", "always", else a denial
// with the text as the reason) and its question. False when it waits for nothing.
bool answer_waiting(const A2aEndpoint& e, const std::string& run_id, const std::string& text) {
  bool answered = false;
  const std::string word = detail::lowercase(detail::trim(text));
  for (const PendingApproval& a : e.ctx->pending.approvals()) {
    if (a.run_id != run_id) continue;
    ApprovalVerdict verdict = ApprovalVerdict::kDeny;
    std::string reason = "denied over A2A: " + text;
    if (word == "yes" || word == "y" || word == "allow" || word == "approve") {
      verdict = ApprovalVerdict::kAllow;
      reason = "approved over A2A";
    } else if (word == "always") {
      verdict = ApprovalVerdict::kAllowAlways;
      reason = "approved over A2A for the rest of the run";
    }
    answered = e.ctx->pending.decide(a.id, verdict, reason).ok() || answered;
  }
  for (const PendingQuestion& q : e.ctx->pending.questions()) {
    if (q.run_id != run_id) continue;
    UserAnswer answer;
    answer.text = text;
    for (size_t i = 0; i < q.question.options.size(); ++i) {
      if (detail::lowercase(q.question.options[i]) == word) answer.option_index = i;
    }
    answered = e.ctx->pending.answer(q.id, std::move(answer)).ok() || answered;
  }
  return answered;
}

// The state a run's event leaves the task in, when it ends the wait: final, or input required.
std::string state_after(const a2a_ns::WatchedEvent& ev) {
  if (ev.type == "run_finished") return "TASK_STATE_COMPLETED";
  if (ev.type == "run_failed") return ev.data.value("kind", "") == "aborted" ? "TASK_STATE_CANCELED" : "TASK_STATE_FAILED";
  if (ev.type == "run_suspended") {
    const std::string why = ev.data.value("reason", "");
    if (why == "waiting_approval" || why == "waiting_answer") return "TASK_STATE_INPUT_REQUIRED";
  }
  return "";
}

void write_sse(HttpResponder& out, const json& id, const json& result) {
  out.write("data: " + json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}.dump(-1, ' ', false, json::error_handler_t::replace) +
            "\n\n");
}

// Streams the run's events as A2A stream responses until the task ends or needs input.
void stream_run(const A2aEndpoint& e, a2a_ns::RunWatch& watch, const std::string& run_id, const std::string& context_id,
                const json& id, const std::shared_ptr<HttpResponder>& out) {
  Result<json> first = current_task(e, run_id, false);
  if (first.ok()) write_sse(*out, id, {{"task", *first}});
  bool streamed = false;
  const std::string artifact = run_id + "-answer";
  auto status_update = [&](const std::string& state, const std::string& text) {
    json status = {{"state", state}};
    if (!text.empty()) status["message"] = a2a_ns::agent_message(text, context_id, run_id);
    write_sse(*out, id, {{"statusUpdate", {{"taskId", run_id}, {"contextId", context_id}, {"status", std::move(status)}}}});
  };
  while (!out->closed()) {
    std::optional<a2a_ns::WatchedEvent> ev = watch.next(kPoll);
    if (!ev) continue;
    if (ev->type == "model_delta" && ev->data.value("text", json()).is_string()) {
      write_sse(*out, id, {{"artifactUpdate",
                            {{"taskId", run_id}, {"contextId", context_id},
                             {"artifact", {{"artifactId", artifact}, {"name", "answer"}, {"parts", json::array({{{"text", ev->data["text"]}}})}}},
                             {"append", streamed}, {"lastChunk", false}}}});
      streamed = true;  // the next chunk appends; a chunk with append false starts the artifact over
    } else if (ev->type == "model_reply" && !ev->data.value("tool_calls", json::array()).empty()) {
      streamed = false;  // text that came with tool calls was narration: the answer replaces it
    } else if (ev->type == "tool_call") {  // the event is the call itself: {"id", "name", "arguments"}
      status_update("TASK_STATE_WORKING", "calling " + ev->data.value("name", std::string("a tool")));
    }
    const std::string state = state_after(*ev);
    if (state.empty()) continue;
    if (state == "TASK_STATE_COMPLETED") {
      json parts = streamed ? json::array() : json::array({{{"text", ev->data.value("answer", "")}}});
      write_sse(*out, id, {{"artifactUpdate",
                            {{"taskId", run_id}, {"contextId", context_id},
                             {"artifact", {{"artifactId", artifact}, {"name", "answer"}, {"parts", std::move(parts)}}},
                             {"append", streamed}, {"lastChunk", true}}}});
      status_update(state, "");
    } else if (state == "TASK_STATE_INPUT_REQUIRED") {
      status_update(state, a2a_ns::waiting_for(e.ctx->pending, run_id));
    } else {
      status_update(state, ev->data.value("error", ""));
    }
    break;
  }
  out->end();
}

// Waits until the task ends or needs input (or the client leaves), then answers with the task.
void finish_blocking(const A2aEndpoint& e, a2a_ns::RunWatch& watch, const std::string& run_id, const json& id,
                     const HttpRequest& req, const std::shared_ptr<HttpResponder>& out) {
  while (!out->closed()) {
    std::optional<a2a_ns::WatchedEvent> ev = watch.next(kPoll);
    if (ev && !state_after(*ev).empty()) break;
  }
  if (out->closed()) return;
  Result<json> task = current_task(e, run_id, true);
  if (!task.ok()) return reply_rpc(e, req, *out, rpc_error(id, -32603, task.status().message()));
  reply_rpc(e, req, *out, {{"jsonrpc", "2.0"}, {"id", id}, {"result", {{"task", *task}}}});
}

// SendMessage and SendStreamingMessage: a new task (a run) in a new or given context, or the
// answer to a task that needs input. Runs on a worker: it waits for the run.
void send_message(const A2aEndpoint& e, const HttpRequest& req, const std::shared_ptr<HttpResponder>& out, const json& id,
                  const json& params, bool streaming) {
  const json message = params.value("message", json());
  Result<std::string> text = a2a_ns::message_text(message);
  if (!text.ok()) {
    const int code = text.status().code() == ErrorCode::kFailedPrecondition ? a2a_ns::kContentTypeNotSupported : -32602;
    return reply_rpc(e, req, *out, rpc_error(id, code, text.status().message()));
  }
  const std::string task_id = message.value("taskId", json()).is_string() ? message["taskId"].get<std::string>() : "";
  std::string context_id = message.value("contextId", json()).is_string() ? message["contextId"].get<std::string>() : "";
  const bool immediately = params.value("configuration", json::object()).value("returnImmediately", false) == true;
  std::string run_id;
  if (!task_id.empty()) {
    Result<RunRecord> run = e.ctx->scope.run(e.ctx->store, task_id);
    if (!run.ok()) return reply_rpc(e, req, *out, rpc_error(id, a2a_ns::kTaskNotFound, "no task " + task_id));
    if (run_state_is_terminal(run->state)) {
      return reply_rpc(e, req, *out, rpc_error(id, a2a_ns::kUnsupportedOperation,
                                               "task " + task_id + " has ended; send a new message with its contextId to go on"));
    }
    context_id = run->session_id;
    run_id = task_id;
  } else if (!context_id.empty()) {
    if (!e.ctx->scope.session(e.ctx->store, context_id).ok())
      return reply_rpc(e, req, *out, rpc_error(id, -32602, "no context " + context_id + " (leave contextId out to start one)"));
  } else {
    SessionInfo info;
    info.title = text->substr(0, text->find('\n')).substr(0, 80);
    info.model = e.ctx->factory.profiles().front().model;
    info.workspace = e.ctx->runs.workspace();
    Result<std::string> created = e.ctx->store.create_session(info);
    if (!created.ok()) return reply_rpc(e, req, *out, rpc_error(id, -32603, created.status().message()));
    context_id = *created;
  }
  a2a_ns::RunWatch watch(e.ctx->events, context_id);  // before the run moves, so no event is missed
  if (!watch.status().ok()) return reply_rpc(e, req, *out, rpc_error(id, -32603, watch.status().message()));
  if (!run_id.empty()) {
    if (!e.ctx->pending.waiting(run_id)) {
      Status steered = e.ctx->runs.steer(run_id, *text);  // a working task takes it as guidance
      if (!steered.ok()) return reply_rpc(e, req, *out, rpc_error(id, a2a_ns::kUnsupportedOperation, steered.message()));
    } else if (!answer_waiting(e, run_id, *text)) {
      return reply_rpc(e, req, *out, rpc_error(id, -32603, "task " + run_id + " could not take the answer"));
    }
  } else {
    RunSettings settings;
    const json meta = message.value("metadata", json::object());
    if (meta.is_object() && meta.value("profile", json()).is_string()) settings.profile = meta["profile"].get<std::string>();
    std::string busy;
    Result<std::string> posted = e.ctx->runs.post_message(context_id, *text, settings, &busy);
    if (!posted.ok()) {
      const std::string why = busy.empty() ? posted.status().message()
                                           : "context " + context_id + " has task " + busy + " in progress; wait for it or cancel it";
      return reply_rpc(e, req, *out, rpc_error(id, busy.empty() ? -32603 : a2a_ns::kUnsupportedOperation, why));
    }
    run_id = *posted;
  }
  watch.follow(run_id);
  if (streaming) {
    server::HttpHeaders headers = cors_headers(req, e.ctx->access);
    headers.emplace_back("Content-Type", "text/event-stream");
    headers.emplace_back("Cache-Control", "no-cache");
    out->start_stream(200, std::move(headers));
    return stream_run(e, watch, run_id, context_id, id, out);
  }
  if (immediately) {
    Result<json> task = current_task(e, run_id, false);
    if (!task.ok()) return reply_rpc(e, req, *out, rpc_error(id, -32603, task.status().message()));
    return reply_rpc(e, req, *out, {{"jsonrpc", "2.0"}, {"id", id}, {"result", {{"task", *task}}}});
  }
  finish_blocking(e, watch, run_id, id, req, out);
}

void cancel_task(const A2aEndpoint& e, const HttpRequest& req, HttpResponder& out, const json& id, const std::string& task_id) {
  Result<RunRecord> run = e.ctx->scope.run(e.ctx->store, task_id);
  if (!run.ok()) return reply_rpc(e, req, out, rpc_error(id, a2a_ns::kTaskNotFound, "no task " + task_id));
  if (run_state_is_terminal(run->state)) {
    return reply_rpc(e, req, out, rpc_error(id, a2a_ns::kTaskNotCancelable, "task " + task_id + " has already ended"));
  }
  a2a_ns::RunWatch watch(e.ctx->events, run->session_id);  // before the abort, so its end is seen
  watch.follow(task_id);
  if (!e.ctx->runs.abort(task_id).ok()) {
    return reply_rpc(e, req, out, rpc_error(id, a2a_ns::kTaskNotCancelable, "task " + task_id + " has already ended"));
  }
  // The abort lands when the run next stops (at once for a parked or queued one); the answer
  // waits for its end, up to a few seconds.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (watch.status().ok() && std::chrono::steady_clock::now() < deadline) {
    std::optional<a2a_ns::WatchedEvent> ev = watch.next(std::chrono::milliseconds(200));
    if (ev && (ev->type == "run_failed" || ev->type == "run_finished")) break;
  }
  Result<json> task = current_task(e, task_id, false);
  if (!task.ok()) return reply_rpc(e, req, out, rpc_error(id, -32603, task.status().message()));
  reply_rpc(e, req, out, {{"jsonrpc", "2.0"}, {"id", id}, {"result", *task}});
}

void handle_rpc(const std::shared_ptr<const A2aEndpoint>& e, const HttpRequest& req, std::shared_ptr<HttpResponder> out) {
  const std::string_view version = req.header("A2A-Version");
  json body = json::parse(req.body, nullptr, false);
  const json id = body.is_object() ? body.value("id", json()) : json();
  // A 0.3 method is answered in 0.3's shapes (a2a_v03.hpp), whatever version the header names.
  const std::string v1_of_v03 = body.is_object() && body.value("method", json()).is_string()
                                    ? a2a_ns::v1_method_of_v03(body["method"].get<std::string>())
                                    : std::string();
  if (!v1_of_v03.empty()) out = a2a_ns::v03_responder(std::move(out), v1_of_v03);
  if (!version.empty() && version != a2a_ns::kProtocolVersion && !(a2a_ns::is_v03_version(version) && !v1_of_v03.empty())) {
    return reply_rpc(*e, req, *out, rpc_error(id, a2a_ns::kVersionNotSupported,
                                              "keel speaks A2A " + std::string(a2a_ns::kProtocolVersion) + ", not " + std::string(version)));
  }
  if (body.is_discarded()) return reply_rpc(*e, req, *out, rpc_error(nullptr, -32700, "the body is not JSON"));
  if (!body.is_object() || body.value("jsonrpc", json()) != "2.0" || !body.value("method", json()).is_string())
    return reply_rpc(*e, req, *out, rpc_error(id, -32600, "not a JSON-RPC 2.0 request"));
  const std::string method = v1_of_v03.empty() ? body["method"].get<std::string>() : v1_of_v03;
  const json params =
      v1_of_v03.empty() ? body.value("params", json::object()) : a2a_ns::v1_params_from_v03(body.value("params", json::object()));
  if (!params.is_object()) return reply_rpc(*e, req, *out, rpc_error(id, -32602, "params must be an object"));
  if (method == "GetTask" || method == "CancelTask") {
    if (!params.value("id", json()).is_string()) return reply_rpc(*e, req, *out, rpc_error(id, -32602, "'id' must be a string"));
    const std::string task_id = params["id"].get<std::string>();
    if (method == "CancelTask") {
      // The wait for the abort to land runs on a worker.
      e->workers.submit([e, req, out, id, task_id] { cancel_task(*e, req, *out, id, task_id); });
      return;
    }
    const bool history = !params.contains("historyLength") || params.value("historyLength", 0) != 0;
    Result<json> task = current_task(*e, task_id, history);
    if (!task.ok()) return reply_rpc(*e, req, *out, rpc_error(id, a2a_ns::kTaskNotFound, "no task " + task_id));
    return reply_rpc(*e, req, *out, {{"jsonrpc", "2.0"}, {"id", id}, {"result", *task}});
  }
  if (method == "SendMessage" || method == "SendStreamingMessage") {
    const bool streaming = method == "SendStreamingMessage";
    e->workers.submit([e, req, out, id, params, streaming] { send_message(*e, req, out, id, params, streaming); });
    return;
  }
  reply_rpc(*e, req, *out, rpc_error(id, -32601, "keel's A2A agent does not offer '" + method + "'"));
}

}  // namespace

Status mount_a2a_endpoint(server::HttpServer& http, std::shared_ptr<ApiContext> ctx, detail::ThreadPool& workers) {
  if (http.port() != 0) {
    return Status::FailedPrecondition("the A2A endpoint must be mounted before the server starts");
  }
  auto endpoint = std::make_shared<const A2aEndpoint>(A2aEndpoint{std::move(ctx), workers});
  http.route("GET", kCardPath, [endpoint](const HttpRequest& req, std::shared_ptr<HttpResponder> out) {
    handle_card(*endpoint, req, *out);
  });
  http.route("POST", kRpcPath, [endpoint](const HttpRequest& req, std::shared_ptr<HttpResponder> out) {
    handle_rpc(endpoint, req, std::move(out));
  });
  mount_preflight(http, kCardPath, endpoint->ctx->access);
  mount_preflight(http, kRpcPath, endpoint->ctx->access, "A2A-Version");
  return Status::Ok();
}

}  // namespace keel::api
