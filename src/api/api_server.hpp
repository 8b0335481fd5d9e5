// api/api_server.hpp — keel serve's HTTP surface on an HttpServer: the /api routes, their CORS
// preflights and the web UI's static files.
//
//   auto ctx = keel::api::mount_api(http, store, factory, runs, events, pending, options);
//   KEEL_TRY(http.start());
//
// Thread-safety: mount before HttpServer::start(); the returned context must outlive the server's
// use of the routes (keep it until the server has stopped).
#pragma once

#include <memory>
#include <string>

#include "api/api_routes.hpp"

namespace keel::api {

struct ApiServerOptions {
  ApiAccess access;
  SkillsAccess skills;
  std::string web_dir;              // the web UI's files (index.html, modules); empty: no UI
  std::string version;              // reported by /api/health
  int64_t ping_interval_ms = 15000;  // idle event streams get a comment this often
  bool autopilot = false;            // the workspace has an autopilot (GET /api/autopilot says so)
};

std::shared_ptr<ApiContext> mount_api(server::HttpServer& http, Store& store, AgentFactory& factory, RunService& runs,
                                      EventLog& events, PendingInput& pending, ApiServerOptions options);

// Serves `web_dir`: GET / is index.html, GET /ui/<file> the other files, with a strict Content
// Security Policy (scripts and styles from this origin only). Paths that leave the folder are 404.
void mount_web_ui(server::HttpServer& http, const std::string& web_dir);

}  // namespace keel::api
