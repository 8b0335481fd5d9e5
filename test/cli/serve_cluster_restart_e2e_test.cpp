// Two `keel serve` instances on one PostgreSQL database that is restarted in the middle of the
// load (an administrator's fast shutdown, a pause longer than a lease, then the server again): runs
// pause while it is down and continue when it is back, each on the instance that held it;
// /api/health says what is wrong meanwhile. Afterwards every run has finished exactly once, no
// message is lost or duplicated, and every event stream saw its session's whole event log, in
// order, each event once. An instance stopped while the database is away goes at once.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "keel/store/postgres_store.hpp"
#include "server/raw_http_client.hpp"
#include "support/api_harness.hpp"
#include "support/mock_llm_server.hpp"
#include "support/postgres_server.hpp"
#include "support/serve_process.hpp"
#include "support/session_drivers.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;

constexpr int kNodes = 2;
constexpr int kRestartSessions = 20;
constexpr int kRestartRunsPerSession = 10;  // 200 runs
constexpr int kRestartRuns = kRestartSessions * kRestartRunsPerSession;
const std::string kRestartAuth = "Authorization: Bearer t0k\r\n";


class ServeClusterRestartE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = db_.url();
    ASSERT_FALSE(url_.empty()) << "the test's PostgreSQL server did not start";
    model_.set_responder([](const std::string& body) { return testing::parse_json_round(body, 10); });
    std::map<std::string, std::string> env = {
        {"HOME", home_.path().string()}, {"KEEL_HOME", home_.path().string()}, {"KEEL_DATABASE_URL", url_}};
    for (int i = 0; i < kNodes; ++i) {
      nodes_.push_back(std::make_unique<testing::ServeProcess>(
          std::vector<std::string>{"--port", "0", "-w", ws_.path().string(), "--token", "t0k", "--base-url",
                                   model_.base_url(), "--model", "mock", "--workers", "6", "--lease-ms", "1000",
                                   "--instance-id", "node-" + std::to_string(i)},
          env));
      ASSERT_NE(nodes_.back()->port(), 0) << nodes_.back()->err();
    }
  }
  int server(const char* command) { return db_.control(command); }

  int64_t query(const std::string& sql) const { return testing::query_postgres_int(url_, sql); }

  std::optional<testing::RawHttpResponse> call(const std::string& method, const std::string& target,
                                               const std::string& body = "") {
    std::string headers = kRestartAuth + (body.empty() ? "" : "Content-Type: application/json\r\n");
    return testing::raw_http(nodes_[turn_++ % kNodes]->port(), method, target, headers, body, 60000);
  }

  // Posts `content` and waits for its run to end; returns the run id ("" on failure, with the
  // reason in *why). While the database is away the API answers 503 at once, naming it: the
  // client tries again, as a client behind a load balancer would. A run accepted once must finish
  // without help.
  std::string run_to_end(const std::string& session, const std::string& content, std::string* why) {
    std::string run;
    for (int attempt = 0; attempt < 600 && run.empty(); ++attempt) {
      auto posted = call("POST", "/api/sessions/" + session + "/messages", json{{"content", content}}.dump());
      json body = posted ? json::parse(posted->body, nullptr, false) : json();
      if (posted && posted->status == 202) run = body.value("run_id", "");
      // Accepted, though the answer said otherwise (its commit's outcome was unknown): the
      // session's active run is that one.
      if (posted && posted->status == 409 && body["error"]["run_id"].is_string()) run = body["error"]["run_id"];
      if (posted && posted->status == 503) note_unavailable(posted->body);
      if (run.empty() && (!posted || posted->status != 503)) {
        *why = posted ? "post answered " + std::to_string(posted->status) + ": " + posted->body : "no answer to the post";
        return "";
      }
      if (run.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (int i = 0; i < 6000; ++i) {
      auto got = call("GET", "/api/runs/" + run);
      if (got && got->status == 503) note_unavailable(got->body);
      if (got && got->status == 200) {
        json record = json::parse(got->body, nullptr, false);
        std::string state = record.value("state", "");
        if (state == "finished") return run;
        if (state == "failed" || state == "aborted") {
          *why = "run " + run + " " + state + ": " + record.value("error", "");
          return "";
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    *why = "run " + run + " did not end";
    return "";
  }

  void note_unavailable(const std::string& body) {
    std::lock_guard lock(unavailable_mu_);
    if (unavailable_.empty()) unavailable_ = body;
    ++unavailable_count_;
  }

  std::mutex unavailable_mu_;
  std::string unavailable_;  // the first 503's body
  int unavailable_count_ = 0;
  // A server of the test's own (stopping the shared one would disturb other tests); it outlives
  // the instances (declared before them).
  testing::ScratchPostgres db_{"cluster-restart"};
  std::string url_;
  testing::TempDir home_, ws_;
  testing::MockLlmServer model_;
  std::vector<std::unique_ptr<testing::ServeProcess>> nodes_;
  std::atomic<uint64_t> turn_{0};
};

TEST_F(ServeClusterRestartE2eTest, RunsPauseThroughADatabaseRestartAndEachFinishesOnce) {
  std::vector<std::string> sessions;
  for (int s = 0; s < kRestartSessions; ++s) {
    auto created = call("POST", "/api/sessions", R"({"title":"restart"})");
    ASSERT_TRUE(created && created->status == 201) << (created ? created->body : "no answer");
    sessions.push_back(json::parse(created->body)["id"]);
  }
  // One event stream per session, on the instances in turn; each stays open through the restart.
  std::atomic<bool> stop_streams{false};
  std::vector<std::vector<testing::SseEvent>> streamed(kRestartSessions);
  std::vector<std::thread> streams;
  for (int s = 0; s < kRestartSessions; ++s) {
    streams.emplace_back([&, s] {
      testing::SseReader reader(nodes_[s % kNodes]->port(), "/api/sessions/" + sessions[s] + "/events",
                                kRestartAuth + "Last-Event-ID: 0\r\n");
      while (!stop_streams && !reader.ended()) reader.wait_for("(none)", 100);
      streamed[s] = reader.events();
    });
  }

  testing::SessionDrivers drivers(kRestartSessions, kRestartRunsPerSession,
                                  [&](int s, const std::string& content, std::string* why) {
                                    return run_to_end(sessions[s], content, why);
                                  });
  // The database goes away with runs in flight, a third of the way through, and stays away a while.
  while (drivers.finished() < kRestartRuns / 3 && !drivers.any_failed()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(server("shutdown"), 0);
  // Meanwhile /api/health answers at once that the database is not there, naming it.
  auto health = testing::raw_http(nodes_[0]->port(), "GET", "/api/health", kRestartAuth, "", 10000);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(server("resume"), 0);
  drivers.join();
  auto health_after = testing::raw_http(nodes_[1]->port(), "GET", "/api/health", kRestartAuth, "", 10000);
  auto stop_all_streams = [&] {
    stop_streams = true;
    for (auto& t : streams) {
      if (t.joinable()) t.join();
    }
  };
  const std::vector<std::string> failures = drivers.failures();
  if (!failures.empty()) {
    stop_all_streams();
    for (auto& node : nodes_) {
      node->read_err_for(200);
      std::fprintf(stderr, "--- %s\n", node->err().c_str());
    }
  }
  if (!failures.empty() || !health.has_value()) stop_all_streams();
  ASSERT_TRUE(failures.empty()) << failures.size() << " runs failed; the first: " << failures.front();
  // What clients heard meanwhile: 503, naming the database.
  EXPECT_GE(unavailable_count_, 1);
  EXPECT_NE(unavailable_.find("127.0.0.1"), std::string::npos) << unavailable_;
  ASSERT_TRUE(health.has_value());
  EXPECT_EQ(health->status, 503) << health->body;
  json health_body = json::parse(health->body, nullptr, false);
  EXPECT_EQ(health_body["store"]["reachable"], false) << health->body;
  EXPECT_NE(health_body["store"].value("error", "").find("127.0.0.1"), std::string::npos) << health->body;
  ASSERT_TRUE(health_after.has_value());
  EXPECT_EQ(health_after->status, 200) << health_after->body;
  EXPECT_EQ(drivers.finished(), kRestartRuns);

  // Every run once, with one request and one answer naming it, and no tool result twice.
  EXPECT_EQ(query("SELECT count(*) FROM runs"), kRestartRuns);
  EXPECT_EQ(query("SELECT count(*) FROM runs WHERE state = 'finished'"), kRestartRuns);
  EXPECT_EQ(query("SELECT count(*) FROM messages WHERE role = 'user'"), kRestartRuns);
  EXPECT_EQ(query("SELECT count(*) FROM messages a JOIN messages u ON u.run_id = a.run_id AND u.role = 'user' "
                  "WHERE a.role = 'assistant' AND a.content = 'done:' || u.content"),
            kRestartRuns);
  EXPECT_EQ(query("SELECT count(*) FROM (SELECT run_id, tool_call_id FROM messages WHERE role = 'tool' "
                  "GROUP BY run_id, tool_call_id HAVING count(*) > 1) d"),
            0);
  EXPECT_EQ(query("SELECT count(*) FROM (SELECT session_id, seq FROM messages GROUP BY session_id, seq "
                  "HAVING count(*) > 1) d"),
            0);
  // The database was away longer than a lease: every lease ran out, yet each instance kept its
  // own runs (an instance back in contact renews before it claims another's).
  EXPECT_EQ(query("SELECT count(*) FROM server_events WHERE type = 'run_resumed' AND data LIKE "
                  "'%\"reason\":\"takeover\"%'"),
            0);
  EXPECT_EQ(query("SELECT count(*) FROM (SELECT run_id FROM server_events WHERE type = 'run_finished' "
                  "GROUP BY run_id HAVING count(*) > 1) d"),
            0);

  // Every stream saw its session's stored events: the same ones, in order, once each.
  PostgresStoreOptions po;
  po.url = url_;
  po.pool_size = 1;
  auto store = open_postgres_store(po);
  if (!store.ok()) stop_all_streams();
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  std::vector<std::vector<ServerEvent>> stored(kRestartSessions);
  // A run's record ends before its last events are stored: wait for every run_finished.
  for (int s = 0; s < kRestartSessions; ++s) {
    for (int wait = 0; wait < 300; ++wait) {
      stored[s] = *(*store)->list_server_events(sessions[s], 0, 100000);
      int ends = 0;
      for (const ServerEvent& e : stored[s]) ends += e.type == "run_finished";
      if (ends == kRestartRunsPerSession) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the streams take in the last ones
  stop_all_streams();
  for (int s = 0; s < kRestartSessions; ++s) {
    std::string seen;
    for (const testing::SseEvent& e : streamed[s]) seen += std::to_string(e.id) + ":" + e.type + " ";
    ASSERT_EQ(streamed[s].size(), stored[s].size()) << "session " << s << ": " << seen;
    for (size_t i = 0; i < stored[s].size(); ++i) {
      EXPECT_EQ(streamed[s][i].id, static_cast<int64_t>(i + 1)) << "session " << s;
      EXPECT_EQ(streamed[s][i].type, stored[s][i].type) << "session " << s << " event " << i + 1;
    }
  }
  for (auto& node : nodes_) EXPECT_EQ(node->interrupt(), 0) << node->err();
  EXPECT_EQ(query("SELECT count(*) FROM server_checkpoints"), 0);
}

TEST_F(ServeClusterRestartE2eTest, AnInstanceStoppedWhileTheDatabaseIsAwayGoesWithoutWaitingForIt) {
  // A run in progress on each instance (the model answers slowly), then the database goes away.
  model_.set_responder([](const std::string& body) { return testing::parse_json_round(body, 3000); });
  std::vector<std::string> runs;
  for (int i = 0; i < kNodes; ++i) {
    auto created = testing::raw_http(nodes_[i]->port(), "POST", "/api/sessions", kRestartAuth +
                                     "Content-Type: application/json\r\n", R"({"title":"stop"})", 10000);
    ASSERT_TRUE(created && created->status == 201) << (created ? created->body : "no answer");
    const std::string session = json::parse(created->body)["id"];
    auto posted = testing::raw_http(nodes_[i]->port(), "POST", "/api/sessions/" + session + "/messages",
                                    kRestartAuth + "Content-Type: application/json\r\n", R"({"content":"slow"})", 10000);
    ASSERT_TRUE(posted && posted->status == 202) << (posted ? posted->body : "no answer");
    runs.push_back(json::parse(posted->body)["run_id"]);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_EQ(server("shutdown"), 0);
  // Stopped meanwhile: each goes within its 15 s (a wait for the database would take 30 s) and
  // says what it could not save.
  for (auto& node : nodes_) {
    const auto asked = std::chrono::steady_clock::now();
    const int code = node->interrupt();
    EXPECT_NE(code, -1) << "did not exit within 15 s: " << node->err();
    EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(10)) << node->err();
  }
  // Back: the runs were left for the next start (nothing finished, nothing lost).
  ASSERT_EQ(server("resume"), 0);
  for (const std::string& run : runs) {
    EXPECT_EQ(query("SELECT count(*) FROM runs WHERE id = '" + run + "' AND state = 'running'"), 1) << run;
    EXPECT_EQ(query("SELECT count(*) FROM server_checkpoints WHERE run_id = '" + run + "'"), 1) << run;
  }
}

}  // namespace
}  // namespace keel
