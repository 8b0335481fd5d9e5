// keel_run_bench — what a step of `keel run` costs the way users run it, against the floor.
//
//   keel_run_bench [--keel PATH] [--reps K] [--quick]
//
// keel_bench's figures come from a mock model inside its own process. Users run a whole `keel run`
// process (its SQLite store on) against a model server in another process, so that is what this
// measures: keel_mock_model_server is started in a process of its own, and against it run
//   - the floor: a bare single-threaded libcurl loop (one reused handle, the conversation appended
//     to a string; run_bench_floor.cpp), in this process;
//   - `keel run --base-url URL --model mock-steps-N --max-rounds N+1 -y "bench task"` in a scratch
//     workspace holding f1.txt..f100.txt (the mock asks for fs_stat of fN.txt each round), with
//     HOME, XDG_* and KEEL_HOME in a scratch folder, in four configurations: store on/off
//     (--ephemeral) x streaming on/off (--no-stream).
// Each does N = 20 and N = 100 rounds K times (default 7), interleaved so drift hits all alike; the
// figure is the median wall time. ms per step is the marginal cost (t100 - t20) / 80, which leaves
// out process start-up and the first connection; each is shown as a ratio to the floor's marginal
// ms per step measured in the same run. Also: cold start (`keel --version`, a one-round
// rules-model run and a one-round run against the mock, store on; median of 20, peak RSS from
// wait4) and the peak RSS of a 20-round run with the store on. The goals are printed beside the
// figures; a missed goal does not fail the run, only an error does (a process exiting non-zero,
// the mock seeing an unexpected request count).
// --quick: 1 rep of 2 and 4 rounds and a single cold start of each kind: the ctest that keeps the
// harness working (everything on 127.0.0.1).
#include "run_bench.hpp"

#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using runbench::ProcessResult;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Config {
  const char* name;
  bool store;
  bool stream;
  double goal_ratio;  // of the floor's ms per step
  std::vector<double> small_ms, big_ms;
  long max_rss_small_kb = 0;
};

// Removes the scratch folder however main ends.
struct TempRoot {
  std::string path = runbench::make_temp_dir("keel-run-bench");
  ~TempRoot() { runbench::remove_tree(path); }
};

class Bench {
 public:
  Bench(std::string keel, int reps, bool quick) : keel_(std::move(keel)), reps_(reps), quick_(quick) {}

  void run() {
    if (::access(keel_.c_str(), X_OK) != 0) throw std::runtime_error("no keel executable at " + keel_);
    if (root_.path.empty()) throw std::runtime_error("cannot make a scratch folder");
    std::string error;
    if (!mock_.start(KEEL_MOCK_MODEL_SERVER, error)) throw std::runtime_error(error);
    workspace_ = root_.path + "/workspace";
    env_ = runbench::scratch_env(root_.path);  // also makes the folders under root
    std::filesystem::create_directories(workspace_);
    for (int i = 1; i <= 100; ++i) std::ofstream(workspace_ + "/f" + std::to_string(i) + ".txt") << "x";
    stderr_file_ = root_.path + "/stderr.txt";

    const int small = quick_ ? 2 : 20, big = quick_ ? 4 : 100;
    std::printf("keel_run_bench: %s\n", keel_.c_str());
    std::printf("mock model: %s (own process); %d rep%s each of %d and %d rounds, median wall time\n",
                mock_.base_url().c_str(), reps_, reps_ == 1 ? "" : "s", small, big);
    std::fflush(stdout);

    runbench::FloorLoop floor(mock_.base_url());
    // Warm-up, not counted: the floor's connection, and keel's first run making the database.
    floor_run(floor, small);
    keel_run(configs_[0], small);

    std::vector<double> floor_small, floor_big;
    for (int rep = 0; rep < reps_; ++rep) {
      floor_small.push_back(floor_run(floor, small));
      floor_big.push_back(floor_run(floor, big));
      for (Config& c : configs_) {
        ProcessResult r = keel_run(c, small);
        c.small_ms.push_back(r.wall_ms);
        c.max_rss_small_kb = std::max(c.max_rss_small_kb, r.max_rss_kb);
        c.big_ms.push_back(keel_run(c, big).wall_ms);
      }
    }

    const double steps = big - small;
    const double floor_step = (median(floor_big) - median(floor_small)) / steps;
    std::printf("\n%-47s %10s %10s %9s %8s  %s\n", "", "wall", "wall", "ms/step", "x floor", "goal");
    std::printf("%-47s %7d rd %7d rd %9s %8s\n", "", small, big, "marginal", "");
    std::printf("%-47s %7.2f ms %7.2f ms %9.4f %8.2f\n", "floor: libcurl loop, one handle, this process",
                median(floor_small), median(floor_big), floor_step, 1.0);
    for (const Config& c : configs_) {
      double step = (median(c.big_ms) - median(c.small_ms)) / steps;
      double ratio = floor_step > 0 ? step / floor_step : 0;
      // A marginal cost at or below zero is noise (too few reps or rounds): no verdict.
      const char* verdict = step <= 0 || floor_step <= 0 ? "n/a (noise)" : ratio <= c.goal_ratio ? "met" : "MISSED";
      std::printf("%-47s %7.2f ms %7.2f ms %9.4f %8.2f  <= %.2fx %s\n", c.name, median(c.small_ms), median(c.big_ms),
                  step, ratio, c.goal_ratio, verdict);
    }
    std::fflush(stdout);

    cold_start(quick_ ? 1 : 20);
    const double rss_mb = static_cast<double>(configs_[0].max_rss_small_kb) / 1024.0;
    std::printf("peak RSS, keel run of %d rounds, store on, streaming (max of %d): %.1f MB   goal <= 15 MB %s\n", small,
                reps_, rss_mb, rss_mb <= 15.0 ? "met" : "MISSED");
    std::printf(
        "ms/step = (median wall at %d rounds - median at %d) / %d: process start-up and the first connection "
        "cancel out\n",
        big, small, big - small);
    if (quick_) std::printf("quick check passed: every process exited 0, the mock saw the expected requests\n");
  }

 private:
  void check_requests(long before, int rounds, const char* who) {
    long after = runbench::mock_chat_requests(mock_.base_url());
    if (before < 0 || after < 0) throw std::runtime_error("cannot read the mock's /stats");
    if (after - before != rounds + 1) {
      throw std::runtime_error(std::string(who) + ": the mock answered " + std::to_string(after - before) +
                               " chat requests for " + std::to_string(rounds) + " rounds, not " +
                               std::to_string(rounds + 1));
    }
  }

  double floor_run(runbench::FloorLoop& floor, int rounds) {
    long before = runbench::mock_chat_requests(mock_.base_url());
    std::string error;
    const auto t = std::chrono::steady_clock::now();
    if (!floor.run(rounds, error)) throw std::runtime_error(error);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
    check_requests(before, rounds, "floor");
    return ms;
  }

  ProcessResult keel_run(const Config& c, int rounds) {
    std::vector<std::string> argv = {keel_,
                                     "run",
                                     "--base-url",
                                     mock_.base_url(),
                                     "--model",
                                     "mock-steps-" + std::to_string(rounds),
                                     "--max-rounds",
                                     std::to_string(rounds + 1),
                                     "-y"};
    if (!c.store) argv.push_back("--ephemeral");
    if (!c.stream) argv.push_back("--no-stream");
    argv.push_back("bench task");
    long before = runbench::mock_chat_requests(mock_.base_url());
    ProcessResult r = runbench::run_process(argv, workspace_, env_, stderr_file_);
    if (r.exit_code != 0) throw std::runtime_error(r.error);
    check_requests(before, rounds, c.name);
    return r;
  }

  void cold_start(int runs) {
    struct Case {
      const char* name;
      std::vector<std::string> args;
      double goal_ms;
    } cases[] = {{"cold start, keel --version", {keel_, "--version"}, 5},
                 {"cold start, one-round rules run, store on", {keel_, "run", "what time is it"}, 10},
                 // No goal of its own: what a user waits for before a model over HTTP answers,
                 // libcurl's loading included.
                 {"cold start, one-round run over HTTP, store on",
                  {keel_, "run", "--base-url", mock_.base_url(), "--model", "mock-steps-1", "--max-rounds", "2", "-y",
                   "--no-stream", "bench task"},
                  0}};
    for (const Case& c : cases) {
      std::vector<double> ms;
      long rss = 0;
      for (int i = 0; i < runs; ++i) {
        ProcessResult r = runbench::run_process(c.args, workspace_, env_, stderr_file_);
        if (r.exit_code != 0) throw std::runtime_error(r.error);
        ms.push_back(r.wall_ms);
        rss = std::max(rss, r.max_rss_kb);
      }
      double m = median(ms);
      std::printf("%-47s %7.2f ms (median of %d), peak RSS %.1f MB", c.name, m, runs,
                  static_cast<double>(rss) / 1024.0);
      if (c.goal_ms > 0) std::printf("   goal <= %.0f ms %s", c.goal_ms, m <= c.goal_ms ? "met" : "MISSED");
      std::printf("\n");
    }
  }

  std::string keel_;
  int reps_;
  bool quick_;
  TempRoot root_;
  runbench::MockServer mock_;
  std::string workspace_, stderr_file_;
  std::vector<std::string> env_;
  Config configs_[4] = {{"keel run, store on, streaming", true, true, 1.3, {}, {}, 0},
                        {"keel run, store on, --no-stream", true, false, 1.3, {}, {}, 0},
                        {"keel run, store off (--ephemeral), streaming", false, true, 1.15, {}, {}, 0},
                        {"keel run, store off (--ephemeral), --no-stream", false, false, 1.15, {}, {}, 0}};
};

int usage() {
  std::fprintf(stderr, "usage: keel_run_bench [--keel PATH] [--reps K] [--quick]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--measure-child") == 0) return runbench::measure_child_main(argc, argv);
  std::string keel = KEEL_BINARY;
  int reps = 7;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0)
      quick = true;
    else if (std::strcmp(argv[i], "--keel") == 0 && i + 1 < argc)
      keel = argv[++i];
    else if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    else
      return usage();
  }
  if (quick) reps = 1;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  int rc = 0;
  try {
    Bench(keel, reps, quick).run();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "keel_run_bench: %s\n", e.what());
    rc = 1;
  }
  curl_global_cleanup();
  return rc;
}
