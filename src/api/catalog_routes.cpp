// /api/health, /api/tools, /api/skills (and deciding skill proposals) and /api/models: what the
// server offers.
#include "api/api_routes.hpp"

namespace keel::api {
namespace {

using server::HttpRequest;
using server::HttpResponder;
using Ctx = std::shared_ptr<ApiContext>;

void health(const Ctx& ctx, const HttpRequest& req, HttpResponder& out) {
  nlohmann::json j = {{"ok", true},
                      {"version", ctx->version},
                      {"active_runs", ctx->runs.active_count()},
                      {"queued_runs", ctx->runs.queued_count()},
                      {"workers", ctx->runs.workers()},
                      {"event_streams", ctx->events.subscriber_count()}};
  const StoreHealth store = ctx->store.health();
  j["store"] = {{"engine", store.engine},
                {"location", store.location},
                {"reachable", store.reachable},
                {"schema_version", store.schema_version},
                {"connections", store.connections}};
  if (!store.reachable) {
    j["store"]["error"] = store.error;
    j["ok"] = false;
  } else if (Result<ServerQueueStats> queue = ctx->store.server_queue(ctx->runs.workspace()); queue.ok()) {
    // The run queue this instance shares with the others serving the workspace from the database.
    j["queue"] = {{"instance", ctx->runs.instance()},
                  {"held_runs", queue->held},
                  {"unclaimed_runs", queue->unclaimed},
                  {"instances", queue->instances}};
  }
  reply_json(*ctx, req, out, store.reachable ? 200 : 503, j);
}

void tools(const Ctx& ctx, const HttpRequest& req, HttpResponder& out) {
  nlohmann::json list = nlohmann::json::array();
  for (const ToolSpec& t : ctx->factory.tools().specs()) {
    nlohmann::json params = nlohmann::json::parse(t.parameters_schema, nullptr, false);
    list.push_back({{"name", t.name},
                    {"description", t.description},
                    {"read_only", t.read_only},
                    {"concurrency_safe", t.concurrency_safe},
                    {"risk", risk_name(t.risk)},
                    {"timeout_ms", t.effective_timeout_ms()},
                    {"cacheable", t.cacheable},
                    {"parameters", params.is_discarded() ? nlohmann::json::object() : params}});
  }
  reply_json(*ctx, req, out, 200, nlohmann::json{{"tools", std::move(list)}});
}

void models(const Ctx& ctx, const HttpRequest& req, HttpResponder& out) {
  std::vector<ProfileInfo> profiles = ctx->factory.profiles();
  nlohmann::json list = nlohmann::json::array();
  for (const ProfileInfo& p : profiles) {
    list.push_back({{"name", p.name}, {"model", p.model}, {"max_rounds", p.max_rounds}, {"description", p.description}});
  }
  reply_json(*ctx, req, out, 200, nlohmann::json{{"default", profiles.front().name}, {"profiles", std::move(list)}});
}

void skills(const Ctx& ctx, const HttpRequest& req, HttpResponder& out) {
  nlohmann::json j = ctx->skills.list ? ctx->skills.list() : nlohmann::json::object();
  for (const char* key : {"knowledge", "executable", "proposals"}) {
    if (!j.contains(key)) j[key] = nlohmann::json::array();
  }
  reply_json(*ctx, req, out, 200, j);
}

// Proposals are named by their public id ("sp_" + 32 hex digits); anything else, the database's
// sequential ids included, names no proposal.
bool public_proposal_id(const std::string& text) {
  return text.size() == 35 && text.rfind("sp_", 0) == 0 &&
         text.find_first_not_of("0123456789abcdef", 3) == std::string::npos;
}

void decide_proposal(const Ctx& ctx, const HttpRequest& req, HttpResponder& out, const std::string& id) {
  if (!public_proposal_id(id)) {
    return reply_error(*ctx, req, out, 404, "not_found", "no skill proposal '" + id + "' in this workspace");
  }
  std::optional<nlohmann::json> body = read_json_body(*ctx, req, out);
  if (!body) return;
  std::optional<std::string> decision = string_field(*ctx, req, out, *body, "decision", true);
  if (!decision) return;
  if (*decision != "approve" && *decision != "reject") {
    return reply_error(*ctx, req, out, 400, "bad_request", "'decision' must be approve or reject, got '" + *decision + "'");
  }
  if (!ctx->skills.decide) return reply_error(*ctx, req, out, 404, "not_found", "this server has no skill proposals");
  Result<nlohmann::json> done = ctx->skills.decide(id, *decision == "approve");
  if (!done.ok()) {
    return reply_status(*ctx, req, out, done.status(),
                        done.status().code() == ErrorCode::kFailedPrecondition ? "already_decided" : "");
  }
  reply_json(*ctx, req, out, 200, *done);
}

}  // namespace

void mount_catalog_routes(server::HttpServer& http, std::shared_ptr<ApiContext> ctx) {
  auto get = [ctx](void (*fn)(const Ctx&, const HttpRequest&, HttpResponder&)) {
    return [ctx, fn](const HttpRequest& req, std::shared_ptr<HttpResponder> out) {
      fn(ctx, req, *out);
    };
  };
  http.route("GET", "/api/health", get(health));
  http.route("GET", "/api/tools", get(tools));
  http.route("GET", "/api/models", get(models));
  http.route("GET", "/api/skills", get(skills));
  http.route("POST", "/api/skills/proposals/*", [ctx](const HttpRequest& req, std::shared_ptr<HttpResponder> out) {
    std::vector<std::string> parts = path_parts(req.path, "/api/skills/proposals/");
    if (parts.size() != 1) return reply_error(*ctx, req, *out, 404, "not_found", "no such path: " + req.path);
    decide_proposal(ctx, req, *out, parts[0]);
  });
}

}  // namespace keel::api
