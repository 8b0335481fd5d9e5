// api/api_routes.hpp — what keel serve's /api route handlers share: the services they call, and
// the small helpers every handler uses to read JSON bodies and answer with JSON or errors.
//
// Handlers run on the HTTP server's io thread: they only take locks briefly and make short store
// calls; runs execute on RunService's workers.
//
// Thread-safety: ApiContext is shared by every handler; each member is thread-safe on its own.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/agent_factory.hpp"
#include "api/api_access.hpp"
#include "api/event_log.hpp"
#include "api/pending_input.hpp"
#include "api/run_service.hpp"
#include "api/workspace_scope.hpp"
#include "keel/store/store.hpp"
#include "server/http_server.hpp"

namespace keel::api {

// Skills as the host knows them: GET /api/skills and deciding proposals. Unset: no skills.
struct SkillsAccess {
  std::function<nlohmann::json()> list;  // {"knowledge":[...],"executable":[...],"proposals":[...]}
  // Approves (runs the action) or rejects a pending proposal of this server's workspace by its
  // public id (SkillProposal::public_id); returns the proposal as JSON. NotFound for an unknown id
  // or another workspace's proposal.
  std::function<Result<nlohmann::json>(const std::string& public_id, bool approve)> decide;
};

// Keeps idle event streams alive (and notices dead ones) with a comment line every interval, from
// one thread for all streams.
class StreamPinger {
 public:
  explicit StreamPinger(int64_t interval_ms);
  ~StreamPinger();
  StreamPinger(const StreamPinger&) = delete;
  StreamPinger& operator=(const StreamPinger&) = delete;
  void add(std::weak_ptr<server::HttpResponder> stream);
  size_t open_streams() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

struct ApiContext {
  Store& store;
  AgentFactory& factory;
  RunService& runs;
  EventLog& events;
  PendingInput& pending;
  ApiAccess access;
  SkillsAccess skills;
  std::string version;
  std::shared_ptr<StreamPinger> pinger;  // set: event streams are pinged
  // The sessions this server shows: its own workspace's. Every route that names a session, run,
  // approval or question checks it; another workspace's is 404, like a missing one.
  WorkspaceScope scope;
  bool autopilot = false;  // the workspace has an autopilot configured
};

// Sends `body` as JSON with the request's CORS headers.
void reply_json(const ApiContext& ctx, const server::HttpRequest& req, server::HttpResponder& out, int status,
                const nlohmann::json& body);
void reply_json(const ApiContext& ctx, const server::HttpRequest& req, server::HttpResponder& out, int status,
                const nlohmann::ordered_json& body);
// Sends {"error":{"code","message"}} with the request's CORS headers.
void reply_error(const ApiContext& ctx, const server::HttpRequest& req, server::HttpResponder& out, int status,
                 std::string_view code, std::string_view message);
// Maps a Status to an HTTP error: NotFound 404, InvalidArgument 400, FailedPrecondition 409,
// Unavailable 503, others 500; `code` replaces the default code when given.
void reply_status(const ApiContext& ctx, const server::HttpRequest& req, server::HttpResponder& out, const Status& status,
                  std::string_view code = {});
// The request's body as a JSON object (an empty body is {}); otherwise answers 400 and returns nullopt.
std::optional<nlohmann::json> read_json_body(const ApiContext& ctx, const server::HttpRequest& req,
                                             server::HttpResponder& out);
// A string field: absent → `fallback`; present but not a string → 400 (returns nullopt, answered).
// `required` with no field also answers 400.
std::optional<std::string> string_field(const ApiContext& ctx, const server::HttpRequest& req, server::HttpResponder& out,
                                        const nlohmann::json& body, const char* name, bool required,
                                        std::string fallback = {});
// "/api/sessions/s_1/events" after prefix "/api/sessions/" → {"s_1", "events"}.
std::vector<std::string> path_parts(std::string_view path, std::string_view prefix);
// Answers 405 naming the allowed methods.
void reply_method_not_allowed(const ApiContext& ctx, const server::HttpRequest& req, server::HttpResponder& out,
                              std::string_view allow);

// Route groups; each registers its routes on `http` (before start) with the shared context.
void mount_session_routes(server::HttpServer& http, std::shared_ptr<ApiContext> ctx);
void mount_run_routes(server::HttpServer& http, std::shared_ptr<ApiContext> ctx);
void mount_catalog_routes(server::HttpServer& http, std::shared_ptr<ApiContext> ctx);
void mount_autopilot_routes(server::HttpServer& http, std::shared_ptr<ApiContext> ctx);
// The SSE stream of a session's (or one run's) events from `after_seq` on, kept open.
void stream_events(const std::shared_ptr<ApiContext>& ctx, const server::HttpRequest& req,
                   std::shared_ptr<server::HttpResponder> out, const std::string& session_id,
                   const std::string& run_id);

}  // namespace keel::api
