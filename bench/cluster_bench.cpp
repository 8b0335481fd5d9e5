// keel_cluster_bench — keel serve as several instances on one PostgreSQL database, beside one
// instance on SQLite: runs per second and event latency, measured the same way for each setup in
// one process.
//
//   keel_cluster_bench [--sessions N] [--runs R] [--workers W]
//
// Each setup starts its keel serve processes, creates N sessions, opens one event stream per
// session (on the instances in turn) and sends R messages per session (round-robin over the
// instances, each after the previous run ended). Every run makes one read-only tool call and
// answers, against an in-process mock model that answers at once. Event latency is the time from an
// event's publication (its time_us) to its arrival at the client, wherever the run executed.
// PostgreSQL runs on a server of its own (durable settings, test/support/pg-test-server.sh).
// The cost of one message append on each engine is keel_store_bench's figure.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "server/raw_http_client.hpp"
#include "support/api_harness.hpp"
#include "support/mock_llm_server.hpp"
#include "support/postgres_server.hpp"
#include "support/serve_process.hpp"
#include "support/temp_dir.hpp"

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
const std::string kAuth = "Authorization: Bearer t0k\r\n";

int64_t epoch_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// One parse_json call per request of the user, then an answer.
keel::testing::MockResponse answer(const std::string& body) {
  keel::ModelReply reply;
  if (keel::testing::latest_user_request(body).tool_answered) {
    reply.text = "done";
  } else {
    reply.tool_calls.push_back({"c1", "parse_json", R"({"text":"[1,2]","path":"$[1]"})"});
  }
  return keel::testing::mock_completion(reply);
}

struct Figures {
  double runs_per_s = 0;
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
  size_t events = 0;
  int errors = 0;
};

Figures measure(const std::string& label, int instances, const std::string& database_url, int sessions, int runs,
                int workers) {
  keel::testing::MockLlmServer model;
  model.set_responder(answer);
  keel::testing::TempDir home, ws;
  std::map<std::string, std::string> env = {{"HOME", home.path().string()}, {"KEEL_HOME", home.path().string()}};
  if (!database_url.empty()) env["KEEL_DATABASE_URL"] = database_url;
  std::vector<std::unique_ptr<keel::testing::ServeProcess>> serves;
  for (int i = 0; i < instances; ++i) {
    serves.push_back(std::make_unique<keel::testing::ServeProcess>(
        std::vector<std::string>{"--port", "0", "-w", ws.path().string(), "--token", "t0k", "--base-url",
                                 model.base_url(), "--model", "mock", "--workers", std::to_string(workers),
                                 "--instance-id", "bench-" + std::to_string(i)},
        env));
    if (serves.back()->port() == 0) {
      std::fprintf(stderr, "keel serve did not start: %s\n", serves.back()->err().c_str());
      std::exit(1);
    }
  }
  std::atomic<uint64_t> turn{0};
  auto port = [&] { return serves[turn++ % serves.size()]->port(); };
  std::vector<std::string> ids;
  for (int s = 0; s < sessions; ++s) {
    auto created = keel::testing::raw_http(port(), "POST", "/api/sessions",
                                           kAuth + "Content-Type: application/json\r\n", R"({"title":"bench"})");
    if (!created || created->status != 201) {
      std::fprintf(stderr, "cannot create a session\n");
      std::exit(1);
    }
    ids.push_back(json::parse(created->body)["id"]);
  }
  std::mutex mu;
  std::vector<double> latencies_ms;
  std::atomic<int> errors{0};
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int s = 0; s < sessions; ++s) {
    threads.emplace_back([&, s] {
      keel::testing::SseReader stream(serves[s % serves.size()]->port(), "/api/sessions/" + ids[s] + "/events", kAuth);
      size_t taken = 0;
      std::vector<double> mine;
      for (int r = 0; r < runs; ++r) {
        auto posted =
            keel::testing::raw_http(port(), "POST", "/api/sessions/" + ids[s] + "/messages",
                                    kAuth + "Content-Type: application/json\r\n", R"({"content":"go"})", 20000);
        if (!posted || posted->status != 202) {
          ++errors;
          continue;
        }
        if (!stream.wait_for("run_finished", 30000)) ++errors;
        for (; taken < stream.events().size(); ++taken) {
          // The arrival is when the reader parsed it: close enough while the reader keeps up.
          const auto& e = stream.events()[taken];
          if (e.data.contains("time_us")) mine.push_back((epoch_us() - e.data["time_us"].get<int64_t>()) / 1000.0);
        }
      }
      std::lock_guard lock(mu);
      latencies_ms.insert(latencies_ms.end(), mine.begin(), mine.end());
    });
  }
  for (auto& t : threads) t.join();
  const double wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& serve : serves) serve->interrupt();
  Figures f;
  f.runs_per_s = sessions * runs / wall_s;
  f.events = latencies_ms.size();
  f.errors = errors.load();
  std::sort(latencies_ms.begin(), latencies_ms.end());
  if (!latencies_ms.empty()) {
    f.p50_ms = latencies_ms[latencies_ms.size() / 2];
    f.p99_ms = latencies_ms[std::min(latencies_ms.size() - 1, latencies_ms.size() * 99 / 100)];
    f.max_ms = latencies_ms.back();
  }
  std::printf("%-34s %6.1f runs/s  events %6zu  latency p50 %6.2f ms  p99 %7.2f ms  max %7.2f ms  errors %d\n",
              label.c_str(), f.runs_per_s, f.events, f.p50_ms, f.p99_ms, f.max_ms, f.errors);
  std::fflush(stdout);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  int sessions = 60, runs = 10, workers = 8;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--sessions") == 0) sessions = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--workers") == 0) workers = std::atoi(argv[i + 1]);
  }
  std::printf("%d sessions x %d runs (one tool round each), %d workers per instance, %u cores\n", sessions, runs,
              workers, std::thread::hardware_concurrency());
  Figures sqlite = measure("1 instance, SQLite", 1, "", sessions, runs, workers);
  Figures one, three;
  {
    keel::testing::ScratchPostgres db("cluster-bench");
    if (db.url().empty()) {
      std::fprintf(stderr, "cannot start a PostgreSQL server (test/support/pg-test-server.sh)\n");
      return 1;
    }
    one = measure("1 instance, PostgreSQL", 1, db.url(), sessions, runs, workers);
    three = measure("3 instances, PostgreSQL", 3, db.url(), sessions, runs, workers);
  }
  std::printf("--- 3 / 1 PostgreSQL instances: runs/s %.2fx, p99 latency %.2fx; 1 PostgreSQL / SQLite: runs/s %.2fx\n",
              three.runs_per_s / one.runs_per_s, three.p99_ms / one.p99_ms, one.runs_per_s / sqlite.runs_per_s);
  return sqlite.errors + one.errors + three.errors == 0 ? 0 : 1;
}
