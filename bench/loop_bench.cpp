// keel_bench — what the agent loop costs, measured against a local mock OpenAI-compatible server.
//
//   keel_bench [--runs R] [--rounds N]
//
// Prints, for R runs of N tool rounds each:
//   - ms per step over loopback HTTP (one step = one model call + its tool batch), streaming and not;
//   - ms per step of the loop alone (in-process model, no HTTP): what keel itself adds;
//   - peak RSS and wall time of a whole `keel run` process doing N rounds against the mock;
//   - cold start: `keel --version` and a one-round `keel run` with the rules model.
// Targets (issue 2): <= 0.2 ms per step including loopback HTTP, <= 20 MB peak RSS, <= 20 ms cold start.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keel/agent.hpp"
#include "keel/openai_client.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::unique_ptr<keel::Tool> noop_tool() {
  keel::ToolSpec s;
  s.name = "noop";
  s.description = "does nothing";
  s.parameters_schema = R"({"type":"object","properties":{"i":{"type":"integer"}},"required":["i"]})";
  s.read_only = true;
  s.concurrency_safe = true;
  return keel::make_tool(s, [](const nlohmann::json& a, const keel::ToolContext&) -> keel::Result<std::string> {
    return "ok " + std::to_string(a["i"].get<int>());
  });
}

size_t count_tool_messages(const std::string& body) {
  size_t n = 0, pos = 0;
  while ((pos = body.find("\"role\":\"tool\"", pos)) != std::string::npos) {
    ++n;
    pos += 13;
  }
  return n;
}

// Answers rounds 1..N-1 with a call of `tool` and round N with text. The answers are built once,
// so the server's own work per request is a copy and a count, not JSON building.
keel::testing::MockLlmServer::Responder responder(int rounds, bool stream, const std::string& tool,
                                                  const std::string& arg, const std::string& arg_end = "") {
  auto answers = std::make_shared<std::vector<keel::testing::MockResponse>>();
  for (int done = 0; done < rounds; ++done) {
    keel::ModelReply r;
    if (done + 1 < rounds) {
      r.tool_calls.push_back({"c" + std::to_string(done), tool, "{" + arg + std::to_string(done) + arg_end + "}"});
    } else {
      r.text = "finished after " + std::to_string(done) + " tool calls";
    }
    answers->push_back(stream ? keel::testing::mock_stream(r, 64) : keel::testing::mock_completion(r));
  }
  return [answers](const std::string& body) {
    size_t done = std::min(count_tool_messages(body), answers->size() - 1);
    return (*answers)[done];
  };
}

struct Figures {
  double ms_per_step = 0;
  double best_ms_per_step = 1e9;
};

Figures bench_http(int runs, int rounds, bool stream) {
  keel::testing::MockLlmServer server;
  server.set_record_requests(false);
  server.set_responder(responder(rounds, stream, "noop", "\"i\":"));
  keel::OpenAiOptions o;
  o.base_url = server.base_url();
  o.model = "bench";
  auto llm = keel::make_openai_client(o);
  keel::ToolRegistry tools;
  (void)tools.add(noop_tool());
  keel::AgentOptions options;
  options.config.max_rounds = rounds + 1;
  options.stream = stream;
  Figures f;
  double total = 0;
  int steps = 0;
  for (int i = 0; i < runs + 1; ++i) {
    keel::Agent agent(*llm, tools, options);
    auto t = Clock::now();
    auto out = agent.run("benchmark task");
    double ms = ms_since(t);
    if (!out.ok() || !out->ok || out->model_calls != rounds) {
      std::fprintf(stderr, "bench run failed: %s\n", out.ok() ? out->error.c_str() : out.status().message().c_str());
      std::exit(1);
    }
    if (i == 0) continue;  // warm-up: connection set-up
    total += ms;
    steps += rounds;
    f.best_ms_per_step = std::min(f.best_ms_per_step, ms / rounds);
  }
  f.ms_per_step = total / steps;
  return f;
}

// An in-process model that answers like the mock server without copying anything: what is left
// of a step is keel's own work (core decisions, tool batch, hooks).
class ScriptedModel final : public keel::LlmClient {
 public:
  explicit ScriptedModel(int rounds) : rounds_(rounds) {}
  keel::Result<keel::ModelReply> complete(const keel::ModelRequest& request, const keel::CallOptions&) override {
    keel::ModelReply r;
    int done = request.round - 1;
    if (done + 1 < rounds_) {
      r.tool_calls.push_back({"c" + std::to_string(done), "noop", "{\"i\":" + std::to_string(done) + "}"});
    } else {
      r.text = "done";
    }
    return r;
  }
  std::string describe() const override { return "scripted"; }

 private:
  int rounds_;
};

Figures bench_in_process(int runs, int rounds) {
  keel::ToolRegistry tools;
  (void)tools.add(noop_tool());
  keel::AgentOptions options;
  options.config.max_rounds = rounds + 1;
  Figures f;
  double total = 0;
  for (int i = 0; i < runs; ++i) {
    ScriptedModel llm(rounds);
    keel::Agent agent(llm, tools, options);
    auto t = Clock::now();
    auto out = agent.run("benchmark task");
    double ms = ms_since(t);
    if (!out.ok() || !out->ok) std::exit(1);
    total += ms;
    f.best_ms_per_step = std::min(f.best_ms_per_step, ms / rounds);
  }
  f.ms_per_step = total / (runs * rounds);
  return f;
}

// One thread waking another and being woken back, averaged: the floor under any step that hands
// work to a tool thread or waits on a socket. It varies a lot between bare metal and VMs.
double thread_round_trip_us() {
  std::mutex m;
  std::condition_variable cv;
  int turn = 0;
  constexpr int kTrips = 2000;
  std::thread other([&] {
    for (int i = 0; i < kTrips; ++i) {
      std::unique_lock l(m);
      cv.wait(l, [&] { return turn == 1; });
      turn = 0;
      cv.notify_one();
    }
  });
  auto t = Clock::now();
  for (int i = 0; i < kTrips; ++i) {
    std::unique_lock l(m);
    turn = 1;
    cv.notify_one();
    cv.wait(l, [&] { return turn == 0; });
  }
  double us = ms_since(t) * 1000.0 / kTrips;
  other.join();
  return us;
}

struct ProcessFigures {
  double wall_ms = 0;
  long max_rss_kb = 0;
  int exit_code = -1;
};

ProcessFigures run_process(std::vector<std::string> args, const std::string& cwd) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  ProcessFigures f;
  pid_t pid;
  auto t = Clock::now();
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0) return f;
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  f.wall_ms = ms_since(t);
  f.max_rss_kb = ru.ru_maxrss;
  f.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  posix_spawn_file_actions_destroy(&fa);
  return f;
}

ProcessFigures best_of(int n, const std::vector<std::string>& args, const std::string& cwd) {
  ProcessFigures best;
  best.wall_ms = 1e9;
  for (int i = 0; i < n; ++i) {
    ProcessFigures f = run_process(args, cwd);
    if (f.exit_code != 0) return f;
    if (f.wall_ms < best.wall_ms) best = f;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 20, rounds = 20;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::max(1, std::atoi(argv[++i]));
    else if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::max(2, std::atoi(argv[++i]));
  }
  std::printf("keel_bench: %d runs x %d rounds\n", runs, rounds);
  std::printf("thread wake round trip on this machine: %.1f us\n", thread_round_trip_us());
  Figures plain = bench_http(runs, rounds, false);
  Figures streamed = bench_http(runs, rounds, true);
  Figures loop = bench_in_process(runs, rounds);
  std::printf("ms per step, loopback HTTP, whole replies: %.3f (best run %.3f)\n", plain.ms_per_step, plain.best_ms_per_step);
  std::printf("ms per step, loopback HTTP, SSE streaming: %.3f (best run %.3f)\n", streamed.ms_per_step, streamed.best_ms_per_step);
  std::printf("ms per step, loop alone (in-process model): %.3f (best run %.3f)\n", loop.ms_per_step, loop.best_ms_per_step);

  keel::testing::TempDir ws;
  keel::testing::MockLlmServer server;
  server.set_record_requests(false);
  // The bench tool is not built into the executable, so the process run stats files f0..fN.
  for (int i = 0; i < rounds; ++i) ws.write("f" + std::to_string(i), "x");
  server.set_responder(responder(rounds, true, "fs_stat", "\"path\":\"f", "\""));
  ProcessFigures full = best_of(3, {KEEL_BINARY, "run", "--base-url", server.base_url(), "--model", "bench",
                                    "--max-rounds", std::to_string(rounds + 1), "benchmark task"},
                                ws.path().string());
  ProcessFigures version = best_of(10, {KEEL_BINARY, "--version"}, ws.path().string());
  ProcessFigures rules = best_of(10, {KEEL_BINARY, "run", "what time is it"}, ws.path().string());
  if (full.exit_code != 0 || version.exit_code != 0 || rules.exit_code != 0) {
    std::fprintf(stderr, "keel process failed: exit %d / %d / %d\n", full.exit_code, version.exit_code, rules.exit_code);
    return 1;
  }
  std::printf("keel run process, %d rounds over HTTP: %.1f ms wall, peak RSS %.1f MB\n", rounds, full.wall_ms,
              static_cast<double>(full.max_rss_kb) / 1024.0);
  std::printf("cold start, keel --version: %.1f ms (peak RSS %.1f MB)\n", version.wall_ms, version.max_rss_kb / 1024.0);
  std::printf("cold start, one-round keel run (rules model): %.1f ms (peak RSS %.1f MB)\n", rules.wall_ms,
              rules.max_rss_kb / 1024.0);
  std::printf("targets: <= 0.2 ms/step over HTTP, <= 20 MB peak RSS, <= 20 ms cold start\n");
  return 0;
}
