// Three `keel serve` instances on one PostgreSQL database, set up as docs/deploy.md shows: 1,000
// runs submitted round-robin against a mock model, one instance killed with SIGKILL in the middle.
// Every run finishes exactly once, no message is lost or duplicated, and every event stream (moved
// to another instance with Last-Event-ID when its own died) sees its session's whole event log, in
// order, each event once.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
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

constexpr int kInstances = 3;
constexpr int kSessions = 40;
constexpr int kRunsPerSession = 25;  // 1,000 runs
constexpr int kKilled = 1;           // the instance that dies
const std::string kAuth = "Authorization: Bearer t0k\r\n";


struct Seen {
  int64_t seq;
  std::string type;
  std::string run_id;
};

class ServeClusterE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto schema = testing::PostgresSchema::create();
    ASSERT_TRUE(schema.ok()) << schema.status().to_string();
    schema_.emplace(std::move(schema).value());
    model_.set_responder([](const std::string& body) { return testing::parse_json_round(body, 10); });
    std::map<std::string, std::string> env = {
        {"HOME", home_.path().string()}, {"KEEL_HOME", home_.path().string()}, {"KEEL_DATABASE_URL", schema_->url()}};
    for (int i = 0; i < kInstances; ++i) {
      instances_.push_back(std::make_unique<testing::ServeProcess>(
          std::vector<std::string>{"--port", "0", "-w", ws_.path().string(), "--token", "t0k", "--base-url",
                                   model_.base_url(), "--model", "mock", "--workers", "8", "--lease-ms", "4000",
                                   "--instance-id", "node-" + std::to_string(i)},
          env));
      ASSERT_NE(instances_.back()->port(), 0) << instances_.back()->err();
      dead_[i] = false;
    }
  }

  // A live instance's port, round-robin.
  uint16_t next_port() {
    for (;;) {
      int i = static_cast<int>(turn_++ % kInstances);
      if (!dead_[i]) return instances_[i]->port();
    }
  }

  std::optional<testing::RawHttpResponse> call(const std::string& method, const std::string& target,
                                               const std::string& body = "") {
    std::string headers = kAuth + (body.empty() ? "" : "Content-Type: application/json\r\n");
    return testing::raw_http(next_port(), method, target, headers, body, 20000);
  }

  // Posts `content` and waits for its run to end; returns the run id ("" on failure, with the
  // reason in *why).
  std::string run_to_end(const std::string& session, const std::string& content, std::string* why) {
    std::string run;
    for (int attempt = 0; attempt < 100 && run.empty(); ++attempt) {
      auto posted = call("POST", "/api/sessions/" + session + "/messages", json{{"content", content}}.dump());
      if (!posted) {
        *why = "no answer to the post";
        continue;  // the instance died under the request: another one is asked
      }
      json body = json::parse(posted->body, nullptr, false);
      if (posted->status == 202) run = body.value("run_id", "");
      // Accepted by an instance that died before it answered: the session's active run is that one.
      if (posted->status == 409 && body["error"]["run_id"].is_string()) run = body["error"]["run_id"];
      if (run.empty()) {
        *why = "post answered " + std::to_string(posted->status) + ": " + posted->body;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    if (run.empty()) return "";
    for (int i = 0; i < 3000; ++i) {
      auto got = call("GET", "/api/runs/" + run);
      if (got && got->status == 200) {
        std::string state = json::parse(got->body, nullptr, false).value("state", "");
        if (state == "finished" || state == "failed" || state == "aborted") return run;
        *why = "run " + run + " still " + state;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return "";
  }

  std::optional<testing::PostgresSchema> schema_;
  testing::TempDir home_, ws_;
  testing::MockLlmServer model_;
  std::vector<std::unique_ptr<testing::ServeProcess>> instances_;
  std::atomic<bool> dead_[kInstances];
  std::atomic<uint64_t> turn_{0};
};

TEST_F(ServeClusterE2eTest, AThousandRunsFinishExactlyOnceWhenAnInstanceIsKilled) {
  std::vector<std::string> sessions;
  for (int s = 0; s < kSessions; ++s) {
    auto created = call("POST", "/api/sessions", R"({"title":"cluster"})");
    ASSERT_TRUE(created && created->status == 201) << (created ? created->body : "no answer");
    sessions.push_back(json::parse(created->body)["id"]);
  }

  // One event stream per session, on the instances in turn; a stream whose instance died moves to
  // another with Last-Event-ID.
  std::atomic<bool> stop_streams{false};
  std::vector<std::vector<Seen>> streamed(kSessions);
  std::atomic<int> moved{0};
  std::vector<std::thread> streams;
  for (int s = 0; s < kSessions; ++s) {
    streams.emplace_back([&, s] {
      int at = s % kInstances;
      auto open = [&](int64_t after) {
        return std::make_unique<testing::SseReader>(instances_[at]->port(), "/api/sessions/" + sessions[s] + "/events",
                                                    kAuth + "Last-Event-ID: " + std::to_string(after) + "\r\n");
      };
      auto reader = open(0);
      size_t taken = 0;
      while (!stop_streams) {
        reader->wait_for("(none)", 100);
        for (; taken < reader->events().size(); ++taken) {
          const testing::SseEvent& e = reader->events()[taken];
          streamed[s].push_back({e.id, e.type, e.data.value("run_id", "")});
        }
        if (dead_[at] || reader->ended()) {
          if (dead_[at]) ++moved;
          while (dead_[at]) at = (at + 1) % kInstances;
          reader = open(streamed[s].empty() ? 0 : streamed[s].back().seq);
          taken = 0;
        }
      }
    });
  }

  testing::SessionDrivers drivers(kSessions, kRunsPerSession,
                                  [&](int s, const std::string& content, std::string* why) {
                                    return run_to_end(sessions[s], content, why);
                                  });
  // The instance dies with runs in flight, a third of the way through.
  while (drivers.finished() < kSessions * kRunsPerSession / 3 && !drivers.any_failed()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  dead_[kKilled] = true;
  instances_[kKilled]->kill();
  drivers.join();
  auto stop_all_streams = [&] {
    stop_streams = true;
    for (auto& t : streams) {
      if (t.joinable()) t.join();
    }
  };

  // Every run finished, once.
  if (drivers.finished() != kSessions * kRunsPerSession) {
    stop_all_streams();
    for (auto& serve : instances_) {
      serve->read_err_for(200);
      std::fprintf(stderr, "--- %s\n", serve->err().c_str());
    }
    PostgresStoreOptions po;
    po.url = schema_->url();
    auto store = open_postgres_store(po);
    Result<std::vector<ServerCheckpoint>> queued =
        store.ok() ? (*store)->list_server_checkpoints() : Result<std::vector<ServerCheckpoint>>(store.status());
    if (queued.ok()) {
      for (const ServerCheckpoint& c : queued.value()) {
        std::fprintf(stderr, "queued: %s owner %s lease %lld waiting '%s'\n", c.run_id.c_str(), c.owner.c_str(),
                     static_cast<long long>(c.lease_until_ms), c.waiting.c_str());
      }
    }
  }
  const std::vector<std::string> failures = drivers.failures();
  ASSERT_EQ(drivers.finished(), kSessions * kRunsPerSession) << (failures.empty() ? "" : failures.front());
  PostgresStoreOptions po;
  po.url = schema_->url();
  po.pool_size = 1;
  auto store = open_postgres_store(po);
  if (!store.ok()) stop_all_streams();
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  // Each run: its request, and one answer naming it (after whatever its tool call left).
  for (int s = 0; s < kSessions; ++s) {
    Result<std::vector<StoredMessage>> messages = (*store)->load_messages(sessions[s]);
    if (!messages.ok()) continue;
    std::map<std::string, std::string> transcript;
    std::map<std::string, int> answers;
    for (const StoredMessage& m : *messages) {
      std::string& t = transcript[m.run_id];
      t += std::string(role_name(m.message.role)) + ":" + m.message.content.substr(0, 60) + " | ";
      if (m.message.role == Role::kAssistant && m.message.content.rfind("done:", 0) == 0) ++answers[m.run_id];
    }
    for (const std::string& run : drivers.runs()[s]) {
      if (answers[run] == 1) continue;
      Result<RunRecord> record = (*store)->get_run(run);
      std::string events;
      Result<std::vector<ServerEvent>> logged = (*store)->list_server_events(sessions[s], 0, 100000);
      for (const ServerEvent& e : logged.ok() ? logged.value() : std::vector<ServerEvent>{}) {
        if (e.run_id == run) events += e.type + (e.type == "run_resumed" || e.type == "run_failed" ? e.data : "") + " ";
      }
      ADD_FAILURE() << run << ": " << transcript[run] << " error '" << (record.ok() ? record->error : "?")
                    << "' answer '" << (record.ok() ? record->answer : "?") << "' events: " << events;
    }
  }
  EXPECT_EQ(schema_->query_int("SELECT count(*) FROM runs"), kSessions * kRunsPerSession);
  EXPECT_EQ(schema_->query_int("SELECT count(*) FROM runs WHERE state = 'finished'"), kSessions * kRunsPerSession);
  // No message lost or duplicated: one request and one answer per run, each naming its request.
  EXPECT_EQ(schema_->query_int("SELECT count(*) FROM messages WHERE role = 'user'"), kSessions * kRunsPerSession);
  EXPECT_EQ(schema_->query_int("SELECT count(*) FROM (SELECT run_id FROM messages WHERE role = 'user' "
                               "GROUP BY run_id HAVING count(*) <> 1) d"),
            0);
  EXPECT_EQ(schema_->query_int("SELECT count(*) FROM messages a JOIN messages u ON u.run_id = a.run_id "
                               "AND u.role = 'user' WHERE a.role = 'assistant' AND a.content = 'done:' || u.content"),
            kSessions * kRunsPerSession);
  EXPECT_EQ(schema_->query_int("SELECT count(*) FROM (SELECT run_id, tool_call_id FROM messages WHERE role = 'tool' "
                               "GROUP BY run_id, tool_call_id HAVING count(*) > 1) d"),
            0);
  // The killed instance's runs were taken over by the others.
  EXPECT_GE(schema_->query_int("SELECT count(*) FROM server_events WHERE type = 'run_resumed' "
                               "AND data LIKE '%\"reason\":\"takeover\"%'"),
            1);
  EXPECT_EQ(schema_->query_int("SELECT count(*) FROM (SELECT run_id FROM server_events WHERE type = 'run_finished' "
                               "GROUP BY run_id HAVING count(*) > 1) d"),
            0);

  // Every stream caught up with its session's stored events: the same ones, in order, once each.
  // (The last events of a run are published as it ends: the log settles a moment after.)
  std::vector<std::vector<ServerEvent>> stored(kSessions);
  size_t total = 0;
  for (int settle = 0; settle < 50; ++settle) {
    size_t now = 0;
    for (int s = 0; s < kSessions; ++s) {
      stored[s] = *(*store)->list_server_events(sessions[s], 0, 100000);
      now += stored[s].size();
    }
    if (now == total) break;
    total = now;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  for (int i = 0; i < 500; ++i) {
    bool caught_up = true;
    for (int s = 0; s < kSessions; ++s) caught_up = caught_up && streamed[s].size() >= stored[s].size();
    if (caught_up) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop_all_streams();
  EXPECT_GE(moved.load(), 1);
  for (int s = 0; s < kSessions; ++s) {
    EXPECT_EQ(streamed[s].size(), stored[s].size()) << "session " << s;
    for (size_t i = 0; i < std::min(stored[s].size(), streamed[s].size()); ++i) {
      EXPECT_EQ(streamed[s][i].seq, static_cast<int64_t>(i + 1)) << "session " << s;
      EXPECT_EQ(stored[s][i].seq, static_cast<int64_t>(i + 1)) << "session " << s;
      EXPECT_EQ(streamed[s][i].type, stored[s][i].type) << "session " << s << " event " << i + 1;
    }
    for (const std::string& run : drivers.runs()[s]) {
      int ends = 0;
      for (const Seen& e : streamed[s]) ends += e.run_id == run && e.type == "run_finished";
      EXPECT_LE(ends, 1) << run;
    }
  }
  for (int i = 0; i < kInstances; ++i) {
    if (i != kKilled) {
      EXPECT_EQ(instances_[i]->interrupt(), 0) << instances_[i]->err();
    }
  }
  EXPECT_EQ(schema_->query_int("SELECT count(*) FROM server_checkpoints"), 0);
}

}  // namespace
}  // namespace keel
