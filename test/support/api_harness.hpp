// Test helpers for keel serve's API: a whole server (store, mock model, agent factory, run service,
// HTTP) on 127.0.0.1 that a test can restart over the same database, and a reader of Server-Sent
// Events with timeouts.
//
// Thread-safety: one test thread drives each object.
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <string>
#include <vector>

#include "api/api_server.hpp"
#include "api/event_log.hpp"
#include "api/pending_input.hpp"
#include "api/run_service.hpp"
#include "api/serve_agent_factory.hpp"
#include "keel/store/sqlite_store.hpp"
#include "server/http_server.hpp"
#include "server/raw_http_client.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"
#include "support/test_agent_factory.hpp"

namespace keel::testing {

struct ApiHarnessOptions {
  std::string token;
  std::vector<std::string> cors_origins;
  size_t workers = 2;
  size_t max_body_bytes = 64 * 1024;
  size_t max_connections = 1024;
  ApprovalPolicy approvals;
  std::vector<api::ProfileInfo> profiles;
  int64_t ping_interval_ms = 15000;
  server::AuthThrottleOptions throttle;  // lockout after wrong tokens (tests shorten it)
  // Runs keel serve's own ServeAgentFactory (the assembly layer: keel.yaml in workspace(), the
  // user config under $HOME, secrets, skills) on the mock model ("openai/mock-model"), instead of
  // TestAgentFactory. Set HOME, XDG_CONFIG_HOME and KEEL_HOME to test folders first.
  bool serve_factory = false;
  // Files written into the workspace before the server starts (path relative to it, content).
  std::vector<std::pair<std::string, std::string>> workspace_files;
};

class ApiHarness {
 public:
  explicit ApiHarness(ApiHarnessOptions options = {});
  ~ApiHarness();

  // Stops everything but the database and the mock model (as a server shutting down), then
  // starts again over the same database and takes up the checkpointed runs.
  void restart();
  void stop();

  uint16_t port() const { return http_->port(); }
  MockLlmServer& model() { return model_; }
  Store& store() { return *store_; }
  api::RunService& runs() { return *runs_; }
  api::PendingInput& pending() { return *pending_; }
  const std::filesystem::path& workspace() const { return workspace_; }

  // One request; `token` adds "Authorization: Bearer token".
  RawHttpResponse call(const std::string& method, const std::string& target, const std::string& body = "",
                       const std::string& extra_headers = "");
  nlohmann::json call_json(const std::string& method, const std::string& target, const std::string& body = "",
                           int expect_status = 200);
  // A new session's id.
  std::string new_session();
  // Polls until `pred` holds or `timeout_ms` passes; true when it held.
  template <class Pred>
  static bool eventually(Pred pred, int timeout_ms = 10000) {
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (std::chrono::steady_clock::now() < until) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return pred();
  }
  // The stored state of a run ("finished", "failed", ...) or "" when unknown.
  std::string run_state(const std::string& run_id);

 private:
  void start();
  ApiHarnessOptions options_;
  TempDir dir_;
  std::filesystem::path workspace_;
  MockLlmServer model_;
  std::unique_ptr<Store> store_;
  std::shared_ptr<api::ForwardingAsker> asker_;
  std::unique_ptr<api::AgentFactory> factory_;
  std::unique_ptr<api::EventLog> events_;
  std::unique_ptr<api::PendingInput> pending_;
  std::unique_ptr<api::RunService> runs_;
  std::unique_ptr<server::HttpServer> http_;
  std::shared_ptr<api::ApiContext> ctx_;
};

struct SseEvent {
  int64_t id = 0;
  std::string type;
  nlohmann::json data;
};

// Reads an event stream on its own connection.
class SseReader {
 public:
  // Sends GET `target` with `extra_headers`; status() tells how it was answered.
  SseReader(uint16_t port, const std::string& target, const std::string& extra_headers = "");
  int status() const { return status_; }
  // Reads until an event of `type` arrives (returns it) or the timeout passes (nullopt).
  std::optional<SseEvent> wait_for(const std::string& type, int timeout_ms = 10000);
  // Every event read so far.
  const std::vector<SseEvent>& events() const { return events_; }
  // True once the server ended the stream.
  bool ended() const { return ended_; }

 private:
  void parse();
  RawHttpClient client_;
  int status_ = 0;
  std::string buffer_;
  std::vector<SseEvent> events_;
  size_t seen_ = 0;
  bool ended_ = false;
};

}  // namespace keel::testing
