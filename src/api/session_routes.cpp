// /api/sessions: list, create, get, delete, fork, post a message (starts a run) and the
// session's event stream. Only this server's workspace's sessions exist here (ApiContext::scope).
#include "api/api_routes.hpp"
#include "store/record_json.hpp"

namespace keel::api {
namespace {

using ojson = nlohmann::ordered_json;
using server::HttpRequest;
using server::HttpResponder;
using Ctx = std::shared_ptr<ApiContext>;

ojson session_json(const ApiContext& ctx, const SessionRecord& s) {
  ojson j = detail::session_to_json(s);
  std::optional<std::string> active = ctx.runs.active_run(s.id);
  j["active_run_id"] = active ? ojson(*active) : ojson(nullptr);
  return j;
}

void list_sessions(const Ctx& ctx, const HttpRequest& req, HttpResponder& out) {
  SessionFilter filter;
  filter.limit = 200;
  auto limit = req.query.find("limit");
  if (limit != req.query.end()) {
    try {
      filter.limit = std::stoi(limit->second);
    } catch (...) {
      reply_error(*ctx, req, out, 400, "bad_request", "limit must be a number");
      return;
    }
  }
  Result<std::vector<SessionRecord>> sessions = ctx->scope.list(ctx->store, filter);
  if (!sessions.ok()) return reply_status(*ctx, req, out, sessions.status());
  ojson list = ojson::array();
  for (const SessionRecord& s : *sessions) list.push_back(session_json(*ctx, s));
  reply_json(*ctx, req, out, 200, ojson{{"sessions", std::move(list)}});
}

void create_session(const Ctx& ctx, const HttpRequest& req, HttpResponder& out) {
  std::optional<nlohmann::json> body = read_json_body(*ctx, req, out);
  if (!body) return;
  std::optional<std::string> title = string_field(*ctx, req, out, *body, "title", false);
  if (!title) return;
  std::optional<std::string> profile = string_field(*ctx, req, out, *body, "profile", false);
  if (!profile) return;
  std::vector<ProfileInfo> profiles = ctx->factory.profiles();
  const ProfileInfo* chosen = &profiles.front();
  if (!profile->empty()) {
    chosen = nullptr;
    for (const ProfileInfo& p : profiles) {
      if (p.name == *profile) chosen = &p;
    }
    if (chosen == nullptr) return reply_error(*ctx, req, out, 400, "bad_request", "no profile '" + *profile + "'");
  }
  SessionInfo info;
  info.title = *title;
  info.model = chosen->model;
  info.workspace = ctx->runs.workspace();
  Result<std::string> id = ctx->store.create_session(info);
  if (!id.ok()) return reply_status(*ctx, req, out, id.status());
  Result<SessionRecord> created = ctx->store.get_session(*id);
  if (!created.ok()) return reply_status(*ctx, req, out, created.status());
  reply_json(*ctx, req, out, 201, session_json(*ctx, *created));
}

void get_session(const Ctx& ctx, const HttpRequest& req, HttpResponder& out, const std::string& id) {
  Result<SessionRecord> session = ctx->scope.session(ctx->store, id);
  if (!session.ok()) return reply_status(*ctx, req, out, session.status());
  Result<std::vector<StoredMessage>> messages = ctx->store.load_messages(id);
  if (!messages.ok()) return reply_status(*ctx, req, out, messages.status());
  Result<std::vector<RunRecord>> runs = ctx->store.list_runs(id);
  if (!runs.ok()) return reply_status(*ctx, req, out, runs.status());
  ojson j = session_json(*ctx, *session);
  ojson m = ojson::array();
  for (const StoredMessage& sm : *messages) m.push_back(detail::message_to_json(sm));
  ojson r = ojson::array();
  for (const RunRecord& rr : *runs) {
    ojson rj = detail::run_to_json(rr);
    std::optional<RunPhase> phase = ctx->runs.phase(rr.id);
    if (phase && !run_state_is_terminal(rr.state)) rj["state"] = std::string(run_phase_name(*phase));
    r.push_back(std::move(rj));
  }
  j["messages"] = std::move(m);
  j["runs"] = std::move(r);
  reply_json(*ctx, req, out, 200, j);
}

void delete_session(const Ctx& ctx, const HttpRequest& req, HttpResponder& out, const std::string& id) {
  if (Result<SessionRecord> session = ctx->scope.session(ctx->store, id); !session.ok()) {
    return reply_status(*ctx, req, out, session.status());
  }
  if (std::optional<std::string> active = ctx->runs.active_run(id)) {
    return reply_error(*ctx, req, out, 409, "session_busy",
                       "session '" + id + "' has an active run (" + *active + "); abort it first");
  }
  Status deleted = ctx->store.delete_session(id);
  if (!deleted.ok()) return reply_status(*ctx, req, out, deleted);
  ctx->events.drop_session(id);
  out.respond(204, cors_headers(req, ctx->access), "");
}

void fork_session(const Ctx& ctx, const HttpRequest& req, HttpResponder& out, const std::string& id) {
  std::optional<nlohmann::json> body = read_json_body(*ctx, req, out);
  if (!body) return;
  std::optional<int64_t> at;
  if (auto it = body->find("at"); it != body->end() && !it->is_null()) {
    if (!it->is_number_integer()) return reply_error(*ctx, req, out, 400, "bad_request", "'at' must be a message seq (integer)");
    at = it->get<int64_t>();
  }
  if (Result<SessionRecord> source = ctx->scope.session(ctx->store, id); !source.ok()) {
    return reply_status(*ctx, req, out, source.status());
  }
  Result<std::string> fork = ctx->store.fork_session(id, at);
  if (!fork.ok()) return reply_status(*ctx, req, out, fork.status());
  Result<SessionRecord> created = ctx->store.get_session(*fork);
  if (!created.ok()) return reply_status(*ctx, req, out, created.status());
  reply_json(*ctx, req, out, 201, session_json(*ctx, *created));
}

void post_message(const Ctx& ctx, const HttpRequest& req, HttpResponder& out, const std::string& id) {
  std::optional<nlohmann::json> body = read_json_body(*ctx, req, out);
  if (!body) return;
  std::optional<std::string> content = string_field(*ctx, req, out, *body, "content", true);
  if (!content) return;
  if (content->find_first_not_of(" \t\r\n") == std::string::npos) {
    return reply_error(*ctx, req, out, 400, "bad_request", "'content' is empty");
  }
  RunSettings settings;
  std::optional<std::string> profile = string_field(*ctx, req, out, *body, "profile", false);
  if (!profile) return;
  settings.profile = *profile;
  if (auto it = body->find("max_rounds"); it != body->end() && !it->is_null()) {
    if (!it->is_number_integer()) return reply_error(*ctx, req, out, 400, "bad_request", "'max_rounds' must be an integer");
    settings.max_rounds = it->get<int>();
  }
  if (auto it = body->find("approval_mode"); it != body->end() && !it->is_null()) {
    if (!it->is_string()) return reply_error(*ctx, req, out, 400, "bad_request", "'approval_mode' must be a string");
    settings.approval_mode = it->get<std::string>();
  }
  if (Result<SessionRecord> session = ctx->scope.session(ctx->store, id); !session.ok()) {
    return reply_status(*ctx, req, out, session.status());
  }
  std::string busy;
  Result<std::string> run = ctx->runs.post_message(id, *content, settings, &busy);
  if (!run.ok()) {
    if (run.status().code() == ErrorCode::kFailedPrecondition) {
      server::HttpHeaders headers = cors_headers(req, ctx->access);
      nlohmann::json err = {{"error", {{"code", "session_busy"}, {"message", run.status().message()}}}};
      err["error"]["run_id"] = busy.empty() ? nlohmann::json(nullptr) : nlohmann::json(busy);
      server::respond_json(out, 409, err.dump(), std::move(headers));
      return;
    }
    // Unavailable: the server is stopping, or the database is not answering (a restart).
    return reply_status(*ctx, req, out, run.status(), ctx->runs.stopping() ? "shutting_down" : "");
  }
  reply_json(*ctx, req, out, 202,
             nlohmann::json{{"run_id", *run}, {"session_id", id}, {"events", "/api/sessions/" + id + "/events"}});
}

}  // namespace

void mount_session_routes(server::HttpServer& http, std::shared_ptr<ApiContext> ctx) {
  auto collection = [ctx](const HttpRequest& req, std::shared_ptr<HttpResponder> out) {
    if (req.method == "GET") return list_sessions(ctx, req, *out);
    create_session(ctx, req, *out);
  };
  http.route("GET", "/api/sessions", collection);
  http.route("POST", "/api/sessions", collection);
  auto item = [ctx](const HttpRequest& req, std::shared_ptr<HttpResponder> out) {
    std::vector<std::string> parts = path_parts(req.path, "/api/sessions/");
    if (parts.empty() || parts.size() > 2) return reply_error(*ctx, req, *out, 404, "not_found", "no such path: " + req.path);
    const std::string& id = parts[0];
    if (parts.size() == 1) {
      if (req.method == "GET") return get_session(ctx, req, *out, id);
      if (req.method == "DELETE") return delete_session(ctx, req, *out, id);
      return reply_method_not_allowed(*ctx, req, *out, "GET, DELETE");
    }
    const std::string& what = parts[1];
    if (what == "events") {
      if (req.method != "GET") return reply_method_not_allowed(*ctx, req, *out, "GET");
      if (Result<SessionRecord> s = ctx->scope.session(ctx->store, id); !s.ok()) return reply_status(*ctx, req, *out, s.status());
      return stream_events(ctx, req, out, id, "");
    }
    if (what == "fork" || what == "messages") {
      if (req.method != "POST") return reply_method_not_allowed(*ctx, req, *out, "POST");
      if (what == "fork") return fork_session(ctx, req, *out, id);
      return post_message(ctx, req, *out, id);
    }
    reply_error(*ctx, req, *out, 404, "not_found", "no such path: " + req.path);
  };
  for (const char* method : {"GET", "POST", "DELETE"}) http.route(method, "/api/sessions/*", item);
}

}  // namespace keel::api
