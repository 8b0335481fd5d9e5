// `keel serve`: the HTTP API, live events, the OpenAI-compatible and AG-UI endpoints and the web
// UI, until SIGINT or SIGTERM; running runs are checkpointed on the way out and resumed on the next
// start.
#include <CLI/CLI.hpp>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>

#include <unistd.h>

#include "api/a2a_endpoint.hpp"
#include "api/agui_endpoint.hpp"
#include "api/anthropic_endpoint.hpp"
#include "api/api_server.hpp"
#include "api/event_log.hpp"
#include "api/openai_endpoint.hpp"
#include "api/pending_input.hpp"
#include "api/responses_endpoint.hpp"
#include "api/run_service.hpp"
#include "base/random_token.hpp"
#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "assembly/mcp_setup.hpp"
#include "cli/mcp_http_serve.hpp"
#include "keel/store/outage_wait.hpp"
#include "api/serve_agent_factory.hpp"
#include "assembly/store_access.hpp"
#include "autopilot/workspace_autopilot.hpp"
#include "mcp_server/keel_mcp_handler.hpp"
#include "mcp_server/keel_mcp_server_options.hpp"
#include "mcp_server/mcp_http_endpoint.hpp"
#include "server/host_origin_policy.hpp"
#include "server/http_server.hpp"
#include "base/install_paths.hpp"
#include "base/thread_pool.hpp"

#ifndef KEEL_WEB_DIR
#define KEEL_WEB_DIR ""
#endif

namespace keel::cli {
namespace {

// The web UI's files: an installed keel's (<prefix>/share/keel/web), else the source tree's.
// What of the autopilot keel serve tells on stderr: sources that fail or recover, guards.
void report_autopilot(const AutopilotEvent& e) {
  if (e.kind == AutopilotEvent::Kind::kSourceError) {
    std::fprintf(stderr, "keel serve: autopilot source %s failed: %s\n", e.source.c_str(), e.detail.c_str());
  } else if (e.kind == AutopilotEvent::Kind::kSourceOk) {
    std::fprintf(stderr, "keel serve: autopilot source %s works again\n", e.source.c_str());
  } else if (e.kind == AutopilotEvent::Kind::kGuard) {
    std::fprintf(stderr, "keel serve: autopilot budget guard: %s\n", e.detail.empty() ? "lifted" : e.detail.c_str());
  } else if (e.kind == AutopilotEvent::Kind::kTransition && e.state == "stalled") {
    std::fprintf(stderr, "keel serve: autopilot observation %lld stalled: %s\n", static_cast<long long>(e.observation_id),
                 e.detail.c_str());
  }
}

std::string default_web_dir() {
  if (auto installed = detail::installed_path("share/keel/web"); !installed.empty()) return installed.string();
  return KEEL_WEB_DIR;
}

struct HttpServeArgs {
  api::ServeAgentFlags agent;
  std::string host = "127.0.0.1";
  uint16_t port = 8080;
  std::string token;
  bool no_auth = false;
  std::vector<std::string> cors_origins;
  std::vector<std::string> allowed_hosts;
  size_t workers = 4;
  std::optional<std::string> web_dir;
  std::string instance_id;  // the run queue's name for this instance (default host:port)
  int64_t lease_ms = 15000;
};

// keel's tools (and run_agent) over MCP's Streamable HTTP transport at /mcp, under the default
// profile's approval policy (what it would ask about is asked of the client's user, or refused), with
// the workspace's resources and prompts.
Result<std::unique_ptr<mcp::KeelMcpServer>> make_mcp_server(api::ServeAgentFactory& factory, Store& store) {
  KEEL_ASSIGN_OR_RETURN(mcp::KeelMcpServerOptions options,
                        mcp::keel_mcp_server_options(factory.config(), factory.workspace(), &store, factory.tools(),
                                                [](const std::string& line) {
                                                  std::fprintf(stderr, "keel serve: mcp: %s\n", line.c_str());
                                                }));
  options.run_agent = [&factory](const std::string& task, std::optional<int> rounds,
                                 std::stop_token stop) -> Result<std::string> {
    api::RunSettings settings;
    settings.max_rounds = rounds;
    KEEL_ASSIGN_OR_RETURN(std::unique_ptr<api::AgentLease> lease, factory.make(settings, nullptr));
    KEEL_ASSIGN_OR_RETURN(RunOutcome outcome, lease->agent->run(task, stop));
    if (!outcome.ok) return Status::Aborted(outcome.error);
    return outcome.answer;
  };
  return std::make_unique<mcp::KeelMcpServer>(std::move(options));
}

// HOSTNAME:PORT: the same instance after a restart gets the same name (and takes its runs back at
// once); two live instances cannot share it, as they cannot listen on one host's port together.
// Port 0 (any free port) gets a random suffix instead.
std::string default_instance_id(uint16_t port) {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') std::snprintf(host, sizeof host, "keel");
  if (port != 0) return std::string(host) + ":" + std::to_string(port);
  return std::string(host) + ":" + detail::random_hex(6);
}

int http_serve_command(const HttpServeArgs& args) {
  auto fail = [](const std::string& message) {
    std::fprintf(stderr, "keel: %s\n", message.c_str());
    return kExitUsage;
  };
  if (!server::is_loopback_host(args.host) && args.token.empty()) {
    return fail("serving on " + args.host +
                " is reachable from other machines; give --token (or KEEL_SERVE_TOKEN) so requests must carry it");
  }
  Result<HttpToken> http_token = resolve_http_token(args.token, args.no_auth);
  if (!http_token.ok()) return fail(http_token.status().message());
  const std::string& token = http_token->token;
  std::string token_hint;
  if (!http_token->kept_in.empty()) token_hint = " (keel serve printed it; it is kept in " + http_token->kept_in + ")";
  std::stop_token interrupted = install_interrupt_handler();
  if (args.workers < 1 || args.workers > 256) return fail("--workers must be between 1 and 256");
  if (args.lease_ms < 1000 || args.lease_ms > 3'600'000) return fail("--lease-ms must be between 1000 and 3600000");
  std::string web_dir = args.web_dir.value_or(default_web_dir());
  std::error_code ec;
  if (!web_dir.empty() && !std::filesystem::is_regular_file(std::filesystem::path(web_dir) / "index.html", ec)) {
    if (args.web_dir) return fail("--web-dir " + web_dir + " has no index.html");
    std::fprintf(stderr, "keel serve: warning: the web UI's files are not at %s; serving the API only\n", web_dir.c_str());
    web_dir.clear();
  }

  Result<std::unique_ptr<Store>> store = assembly::open_default_store();
  if (!store.ok()) return fail(store.status().message());
  auto asker = std::make_shared<api::ForwardingAsker>();
  auto notice = [](const std::string& line) { std::fprintf(stderr, "keel serve: %s\n", line.c_str()); };
  Result<std::unique_ptr<api::ServeAgentFactory>> factory = api::ServeAgentFactory::create(args.agent, **store, asker, notice);
  if (!factory.ok()) return fail(factory.status().message());

  // SQLite: one keel serve per workspace and database. PostgreSQL: several, sharing the run queue.
  Result<std::unique_ptr<StoreClaim>> serving = (*store)->claim_server((*factory)->workspace());
  if (!serving.ok()) return fail(serving.status().message());

  api::EventLogOptions event_options;
  event_options.numbered_by_store = !(*serving)->exclusive();
  api::EventLog events(**store, event_options);
  api::PendingInput pending;
  api::RunServiceOptions run_options;
  run_options.workers = args.workers;
  run_options.workspace = (*factory)->workspace();
  run_options.exclusive = (*serving)->exclusive();
  run_options.instance = args.instance_id.empty() ? default_instance_id(args.port) : args.instance_id;
  run_options.lease_ms = args.lease_ms;
  run_options.notice = notice;
  api::RunService runs(**store, **factory, events, pending, asker, run_options);

  // /v1 runs are not parked (no one answers approvals there): they get their own workers.
  detail::ThreadPool::Options v1_pool;
  v1_pool.threads = args.workers;
  v1_pool.max_threads = args.workers;
  detail::ThreadPool v1_workers(v1_pool);
  // A2A requests wait for their task (a run that may park for an approval): threads of their own.
  detail::ThreadPool::Options a2a_pool;
  a2a_pool.threads = 16;
  a2a_pool.max_threads = 16;
  detail::ThreadPool a2a_waiters(a2a_pool);
  // An /agui run holds its worker while a call waits for approval: workers of their own, so
  // waiting runs never hold up /v1.
  detail::ThreadPool agui_workers(v1_pool);

  server::HttpServerOptions http_options;
  http_options.host = args.host;
  http_options.port = args.port;
  http_options.io_threads = 2;
  http_options.max_body_bytes = 1024 * 1024;
  http_options.max_connections = 4096;
  // Handlers run on the io threads: while the database restarts they answer 503 at once rather
  // than wait for it (runs, on their own threads, pause until it is back).
  http_options.on_io_thread_start = [] { set_store_outage_wait_on_this_thread(false); };
  server::HttpServer http(http_options);
  api::ApiServerOptions api_options;
  api_options.access.token = token;
  api_options.access.token_hint = token_hint;
  api_options.access.cors_origins = args.cors_origins;
  api_options.access.allowed_hosts = args.allowed_hosts;
  api::install_access_guard(http, api_options.access);
  api_options.skills = (*factory)->skills_access();
  api_options.web_dir = web_dir;
  api_options.version = KEEL_VERSION;
  const AutopilotConfig& pilot_config = (*factory)->config().autopilot;
  api_options.autopilot = pilot_config.configured && pilot_config.enabled;
  std::shared_ptr<api::ApiContext> ctx = api::mount_api(http, **store, **factory, runs, events, pending, api_options);
  if (Status mounted = api::mount_openai_endpoint(http, **factory, v1_workers, api_options.access); !mounted.ok()) {
    return fail(mounted.message());
  }
  if (Status mounted = api::mount_responses_endpoint(http, **factory, v1_workers, **store, api_options.access);
      !mounted.ok()) {
    return fail(mounted.message());
  }
  if (Status mounted = api::mount_anthropic_endpoint(http, **factory, v1_workers, api_options.access); !mounted.ok()) {
    return fail(mounted.message());
  }
  if (Status mounted = api::mount_a2a_endpoint(http, ctx, a2a_waiters); !mounted.ok()) return fail(mounted.message());
  api::AguiEndpointOptions agui_options;
  agui_options.workspaces = {(*factory)->workspace()};
  agui_options.pending = &pending;
  agui_options.asker = asker;
  if (Status mounted = api::mount_agui_endpoint(http, **factory, agui_workers, **store, api_options.access, agui_options);
      !mounted.ok()) {
    return fail(mounted.message());
  }
  Result<std::unique_ptr<mcp::KeelMcpServer>> mcp_server = make_mcp_server(**factory, **store);
  if (!mcp_server.ok()) return fail(mcp_server.status().message());
  mcp::McpHttpEndpointOptions mcp_options;
  mcp_options.bearer_token = token;
  mcp_options.allowed_origins = args.cors_origins;
  mcp_options.allowed_hosts = api::host_policy(api_options.access, args.host).hosts;
  Result<std::unique_ptr<mcp::McpHttpEndpoint>> mcp_endpoint = mcp::McpHttpEndpoint::mount(
      http, [server = mcp_server->get()] { return server->new_session(); }, mcp_options);
  if (!mcp_endpoint.ok()) return fail(mcp_endpoint.status().message());

  Result<size_t> resumed = runs.recover();
  if (!resumed.ok()) return fail("cannot take up the runs of the last start: " + resumed.status().message());
  if (Status started = http.start(); !started.ok()) return fail(started.message());
  std::string shown = args.host.find(':') != std::string::npos ? "[" + args.host + "]" : args.host;
  std::fprintf(stderr, "keel serve: listening on http://%s:%u\n", shown.c_str(), static_cast<unsigned>(http.port()));
  if (token.empty()) {
    std::fprintf(stderr, "keel serve: warning: --no-auth: every program on this machine can run agents and tools here\n");
  } else if (!web_dir.empty()) {
    std::fprintf(stderr, "keel serve: web UI (signed in): http://%s:%u/#token=%s\n", shown.c_str(),
                 static_cast<unsigned>(http.port()), token.c_str());
  } else if (!token_hint.empty()) {
    std::fprintf(stderr, "keel serve: requests need 'Authorization: Bearer <token>'%s\n", token_hint.c_str());
  }
  if (*resumed > 0) std::fprintf(stderr, "keel serve: resuming %zu run(s) from the last start\n", *resumed);
  std::fflush(stderr);
  std::unique_ptr<Autopilot> pilot;
  std::jthread pilot_thread;
  if (api_options.autopilot) {
    Result<std::unique_ptr<Autopilot>> made =
        autopilot::make_workspace_autopilot((*factory)->config(), (*factory)->workspace(), store->get(), report_autopilot);
    if (!made.ok()) return fail(made.status().message());
    pilot = std::move(made).value();
    pilot_thread = std::jthread([p = pilot.get()](std::stop_token stop) {
      if (Status s = p->run(stop); !s.ok()) std::fprintf(stderr, "keel serve: autopilot stopped: %s\n", s.message().c_str());
    });
    std::fprintf(stderr, "keel serve: autopilot watching %zu source(s)\n", pilot_config.sources.size());
  }

  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, interrupted, [] { return false; });
  lock.unlock();
  std::fprintf(stderr, "keel serve: stopping (running runs are checkpointed)\n");
  stop_store_outage_waits();  // a database that is away now is not waited for
  if (pilot_thread.joinable()) {
    pilot_thread.request_stop();
    pilot_thread.join();
  }
  runs.shutdown();
  http.stop();
  events.flush();
  return kExitOk;
}

}  // namespace

void add_serve_command(CLI::App& app, CommandAction& action) {
  auto args = std::make_shared<HttpServeArgs>();
  if (const char* token = std::getenv("KEEL_SERVE_TOKEN")) args->token = token;
  if (const char* instance = std::getenv("KEEL_INSTANCE_ID")) args->instance_id = instance;
  CLI::App* cmd = app.add_subcommand("serve", command_summary("serve"));
  cmd->add_option("--host", args->host, "Address to listen on (default 127.0.0.1; others need --token)");
  cmd->add_option("--port,-p", args->port, "Port (default 8080; 0 picks a free one)");
  cmd->add_option("--token", args->token,
                  "Require 'Authorization: Bearer TOKEN' (default: $KEEL_SERVE_TOKEN, else one kept in "
                  "$KEEL_HOME/serve-token)");
  cmd->add_flag("--no-auth", args->no_auth,
                "Require no token: every program and user on this machine (and any page the browser is tricked "
                "into loading through an allowed origin) can then run agents, tools and the shell here");
  cmd->add_option("--cors-origin", args->cors_origins, "Allow browser calls from this origin (repeatable; * for any)");
  cmd->add_option("--allow-host", args->allowed_hosts,
                  "Answer requests whose Host header names this host (repeatable; default: the loopback names "
                  "when bound to loopback, else any)");
  cmd->add_option("--workers", args->workers, "Runs executing at once (default 4); more wait in order");
  cmd->add_option("--instance-id", args->instance_id,
                  "This instance's name in the run queue shared by instances on one PostgreSQL database "
                  "(default: $KEEL_INSTANCE_ID, else HOSTNAME:PORT); a restart under the same name takes its runs "
                  "back at once");
  cmd->add_option("--lease-ms", args->lease_ms,
                  "How long a run stays with an instance that stopped renewing its hold on it before another "
                  "instance takes it over (default 15000; PostgreSQL)");
  cmd->add_option("--web-dir", args->web_dir, "Folder of the web UI's files (default: the one keel was built with)");
  cmd->add_option("--model,-m", args->agent.model, "Model of the default profile, as for keel run");
  cmd->add_option("--base-url", args->agent.base_url, "OpenAI-compatible base URL of the default profile");
  cmd->add_option("--api-key", args->agent.api_key, "API key (default: $OPENAI_API_KEY)");
  cmd->add_option("--workspace,-w", args->agent.workspace, "Folder the tools are confined to (default: current directory)");
  cmd->add_option("--max-rounds", args->agent.max_rounds, "Tool rounds of the default profile (default 20)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--approve-mode", args->agent.approve_mode, kApproveModeHelp);
  cmd->add_option("--sandbox", args->agent.sandbox, kSandboxHelp);
  cmd->callback([&action, args] { action = [args] { return http_serve_command(*args); }; });
}

}  // namespace keel::cli
