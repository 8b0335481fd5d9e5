#include "api/api_server.hpp"

namespace keel::api {

std::shared_ptr<ApiContext> mount_api(server::HttpServer& http, Store& store, AgentFactory& factory, RunService& runs,
                                      EventLog& events, PendingInput& pending, ApiServerOptions options) {
  auto ctx = std::shared_ptr<ApiContext>(new ApiContext{store, factory, runs, events, pending, options.access,
                                                        options.skills, options.version, nullptr,
                                                        WorkspaceScope({runs.workspace()}), options.autopilot});
  ctx->pinger = std::make_shared<StreamPinger>(options.ping_interval_ms);
  mount_session_routes(http, ctx);
  mount_run_routes(http, ctx);
  mount_catalog_routes(http, ctx);
  mount_autopilot_routes(http, ctx);
  if (!options.access.cors_origins.empty()) {
    // Every pattern: an exact route is more specific than "/api/*" and would answer OPTIONS with 405.
    for (const char* pattern : {"/api/*", "/api/sessions", "/api/health", "/api/tools", "/api/models", "/api/skills", "/api/autopilot",
                                "/api/approvals", "/api/questions"}) {
      mount_preflight(http, pattern, options.access);
    }
  }
  if (!options.web_dir.empty()) mount_web_ui(http, options.web_dir);
  return ctx;
}

}  // namespace keel::api
