// /api/runs (get, abort, steer, events), /api/approvals and /api/questions: what a person does
// with runs in progress. Only runs of this server's workspace's sessions are reachable
// (ApiContext::scope): another workspace's run, approval or question is 404, like a missing one.
#include "api/api_routes.hpp"
#include "api/remote_inputs.hpp"
#include "store/record_json.hpp"

namespace keel::api {
namespace {

using ojson = nlohmann::ordered_json;
using server::HttpRequest;
using server::HttpResponder;
using Ctx = std::shared_ptr<ApiContext>;

nlohmann::json call_json(const ToolCall& c) {
  nlohmann::json args = nlohmann::json::parse(c.arguments.empty() ? "{}" : c.arguments, nullptr, false);
  return {{"id", c.id}, {"name", c.name}, {"arguments", args.is_discarded() ? nlohmann::json(c.arguments) : args}};
}

void get_run(const Ctx& ctx, const HttpRequest& req, HttpResponder& out, const std::string& id) {
  Result<RunRecord> run = ctx->scope.run(ctx->store, id);
  if (!run.ok()) return reply_status(*ctx, req, out, run.status());
  ojson j = detail::run_to_json(*run);
  std::optional<RunPhase> phase = ctx->runs.phase(id);
  if (phase && !run_state_is_terminal(run->state)) j["state"] = std::string(run_phase_name(*phase));
  reply_json(*ctx, req, out, 200, j);
}

void run_action(const Ctx& ctx, const HttpRequest& req, HttpResponder& out, const std::string& id, const std::string& what) {
  if (Result<RunRecord> run = ctx->scope.run(ctx->store, id); !run.ok()) return reply_status(*ctx, req, out, run.status());
  Status done;
  if (what == "abort") {
    done = ctx->runs.abort(id);
  } else {
    std::optional<nlohmann::json> body = read_json_body(*ctx, req, out);
    if (!body) return;
    std::optional<std::string> content = string_field(*ctx, req, out, *body, "content", true);
    if (!content) return;
    if (content->find_first_not_of(" \t\r\n") == std::string::npos) {
      return reply_error(*ctx, req, out, 400, "bad_request", "'content' is empty");
    }
    done = ctx->runs.steer(id, *content);
  }
  if (!done.ok()) return reply_status(*ctx, req, out, done, done.code() == ErrorCode::kFailedPrecondition ? "run_not_active" : "");
  nlohmann::json j = {{"run_id", id}, {"accepted", what}};
  if (std::optional<RunPhase> phase = ctx->runs.phase(id)) j["state"] = std::string(run_phase_name(*phase));
  reply_json(*ctx, req, out, 202, j);
}

// True when the pending approval or question `id` belongs to a session of this server's workspace.
bool in_scope(const Ctx& ctx, const std::string& id) {
  std::optional<std::string> session = ctx->pending.session_of(id);
  return session && ctx->scope.owns_session(ctx->store, *session);
}

// An item id ("RUN_ID:CALL_ID") this instance does not hold whose run is in this server's scope.
bool forwardable(const Ctx& ctx, const std::string& id) {
  const size_t colon = id.find(':');
  return colon != std::string::npos && ctx->scope.run(ctx->store, id.substr(0, colon)).ok();
}

void list_approvals(const Ctx& ctx, const HttpRequest& req, HttpResponder& out) {
  nlohmann::json list = nlohmann::json::array();
  for (const PendingApproval& a : ctx->pending.approvals()) {
    if (!ctx->scope.owns_session(ctx->store, a.session_id)) continue;
    list.push_back({{"id", a.id},
                    {"run_id", a.run_id},
                    {"session_id", a.session_id},
                    {"call", call_json(a.request.call)},
                    {"risk", risk_name(a.request.risk)},
                    {"reason", a.request.reason}});
  }
  // Several instances: also what waits on runs the others hold (a decision sent here reaches them).
  if (ctx->runs.shares_queue()) {
    for (nlohmann::json& item :
         remote_inputs(ctx->store, ctx->runs.workspace(), ctx->runs.instance(), RemoteInputKind::kApprovals)) {
      list.push_back(std::move(item));
    }
  }
  reply_json(*ctx, req, out, 200, nlohmann::json{{"approvals", std::move(list)}});
}

void decide_approval(const Ctx& ctx, const HttpRequest& req, HttpResponder& out, const std::string& id) {
  std::optional<nlohmann::json> body = read_json_body(*ctx, req, out);
  if (!body) return;
  std::optional<std::string> decision = string_field(*ctx, req, out, *body, "decision", true);
  if (!decision) return;
  std::optional<std::string> reason = string_field(*ctx, req, out, *body, "reason", false);
  if (!reason) return;
  ApprovalVerdict verdict;
  if (*decision == "allow") {
    verdict = ApprovalVerdict::kAllow;
  } else if (*decision == "deny") {
    verdict = ApprovalVerdict::kDeny;
  } else if (*decision == "always") {
    verdict = ApprovalVerdict::kAllowAlways;
  } else {
    return reply_error(*ctx, req, out, 400, "bad_request", "'decision' must be allow, deny or always, got '" + *decision + "'");
  }
  if (reason->empty()) reason = *decision == "deny" ? "denied in the web API" : "approved in the web API";
  if (!in_scope(ctx, id)) {
    // Another instance's run (several on one database): the decision goes to the instance holding it.
    nlohmann::json passed = {{"verdict", approval_verdict_name(verdict)}, {"reason", *reason}};
    if (forwardable(ctx, id) && ctx->runs.forward_input(id, "decide", passed).ok()) {
      return reply_json(*ctx, req, out, 200, nlohmann::json{{"id", id}, {"decision", *decision}});
    }
    return reply_error(*ctx, req, out, 404, "not_found", "no approval '" + id + "' is pending");
  }
  Status done = ctx->pending.decide(id, verdict, *reason);
  if (!done.ok()) return reply_status(*ctx, req, out, done, done.code() == ErrorCode::kFailedPrecondition ? "already_decided" : "");
  reply_json(*ctx, req, out, 200, nlohmann::json{{"id", id}, {"decision", *decision}});
}

void list_questions(const Ctx& ctx, const HttpRequest& req, HttpResponder& out) {
  nlohmann::json list = nlohmann::json::array();
  for (const PendingQuestion& q : ctx->pending.questions()) {
    if (!ctx->scope.owns_session(ctx->store, q.session_id)) continue;
    list.push_back({{"id", q.id},
                    {"run_id", q.run_id},
                    {"session_id", q.session_id},
                    {"question", q.question.question},
                    {"options", q.question.options},
                    {"allow_free_text", q.question.allow_free_text}});
  }
  if (ctx->runs.shares_queue()) {  // see list_approvals
    for (nlohmann::json& item :
         remote_inputs(ctx->store, ctx->runs.workspace(), ctx->runs.instance(), RemoteInputKind::kQuestions)) {
      list.push_back(std::move(item));
    }
  }
  reply_json(*ctx, req, out, 200, nlohmann::json{{"questions", std::move(list)}});
}

void answer_question(const Ctx& ctx, const HttpRequest& req, HttpResponder& out, const std::string& id) {
  std::optional<nlohmann::json> body = read_json_body(*ctx, req, out);
  if (!body) return;
  std::optional<std::string> text = string_field(*ctx, req, out, *body, "answer", false);
  if (!text) return;
  UserAnswer answer;
  answer.text = *text;
  if (auto it = body->find("option_index"); it != body->end() && !it->is_null()) {
    if (!it->is_number_unsigned()) return reply_error(*ctx, req, out, 400, "bad_request", "'option_index' must be a non-negative integer");
    answer.option_index = it->get<size_t>();
  }
  if (!in_scope(ctx, id)) {
    // Another instance's run (several on one database): the answer goes to the instance holding it.
    nlohmann::json passed = {{"text", answer.text}};
    if (answer.option_index) passed["option_index"] = *answer.option_index;
    if (forwardable(ctx, id) && ctx->runs.forward_input(id, "answer", passed).ok()) {
      return reply_json(*ctx, req, out, 200, nlohmann::json{{"id", id}, {"answer", answer.text}});
    }
    return reply_error(*ctx, req, out, 404, "not_found", "no question '" + id + "' is pending");
  }
  // The run and session, for the event, before the answer removes the question.
  std::string run_id, session_id;
  for (const PendingQuestion& q : ctx->pending.questions()) {
    if (q.id != id) continue;
    run_id = q.run_id;
    session_id = q.session_id;
  }
  std::optional<size_t> index = answer.option_index;
  std::string shown;
  Status done = ctx->pending.answer(id, std::move(answer), &shown);
  if (!done.ok()) return reply_status(*ctx, req, out, done, done.code() == ErrorCode::kFailedPrecondition ? "already_decided" : "");
  if (!session_id.empty()) {
    nlohmann::json data = {{"v", 1}, {"type", "question_answered"}, {"run_id", run_id}, {"question_id", id}};
    data["answer"] = shown;
    if (index) data["option_index"] = *index;
    ctx->events.publish(session_id, run_id, "question_answered", std::move(data));
  }
  reply_json(*ctx, req, out, 200, nlohmann::json{{"id", id}, {"answer", shown}});
}

}  // namespace

void mount_run_routes(server::HttpServer& http, std::shared_ptr<ApiContext> ctx) {
  auto runs = [ctx](const HttpRequest& req, std::shared_ptr<HttpResponder> out) {
    std::vector<std::string> parts = path_parts(req.path, "/api/runs/");
    if (parts.empty() || parts.size() > 2) return reply_error(*ctx, req, *out, 404, "not_found", "no such path: " + req.path);
    const std::string& id = parts[0];
    if (parts.size() == 1) {
      if (req.method != "GET") return reply_method_not_allowed(*ctx, req, *out, "GET");
      return get_run(ctx, req, *out, id);
    }
    if (parts[1] == "events") {
      if (req.method != "GET") return reply_method_not_allowed(*ctx, req, *out, "GET");
      Result<RunRecord> run = ctx->scope.run(ctx->store, id);
      if (!run.ok()) return reply_status(*ctx, req, *out, run.status());
      return stream_events(ctx, req, out, run->session_id, id);
    }
    if (parts[1] == "abort" || parts[1] == "steer") {
      if (req.method != "POST") return reply_method_not_allowed(*ctx, req, *out, "POST");
      return run_action(ctx, req, *out, id, parts[1]);
    }
    reply_error(*ctx, req, *out, 404, "not_found", "no such path: " + req.path);
  };
  http.route("GET", "/api/runs/*", runs);
  http.route("POST", "/api/runs/*", runs);

  auto inputs = [ctx](const HttpRequest& req, std::shared_ptr<HttpResponder> out) {
    bool approvals = req.path.rfind("/api/approvals", 0) == 0;
    std::vector<std::string> parts = path_parts(req.path, approvals ? "/api/approvals" : "/api/questions");
    if (parts.empty()) {
      if (req.method != "GET") return reply_method_not_allowed(*ctx, req, *out, "GET");
      return approvals ? list_approvals(ctx, req, *out) : list_questions(ctx, req, *out);
    }
    if (parts.size() != 1) return reply_error(*ctx, req, *out, 404, "not_found", "no such path: " + req.path);
    if (req.method != "POST") return reply_method_not_allowed(*ctx, req, *out, "POST");
    return approvals ? decide_approval(ctx, req, *out, parts[0]) : answer_question(ctx, req, *out, parts[0]);
  };
  for (const char* path : {"/api/approvals", "/api/questions"}) http.route("GET", path, inputs);
  for (const char* path : {"/api/approvals/*", "/api/questions/*"}) {
    http.route("POST", path, inputs);
    http.route("GET", path, inputs);
  }
}

}  // namespace keel::api
