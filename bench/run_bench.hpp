// keel_run_bench's parts: child processes (keel runs, the mock model server), the scratch folders,
// and the libcurl floor loop. See run_bench.cpp for what is measured and why.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace runbench {

// ---------------------------------------------------------------- processes (run_bench_process.cpp)

struct ProcessResult {
  double wall_ms = 0;   // spawn to reaped
  long max_rss_kb = 0;  // wait4's ru_maxrss
  int exit_code = -1;   // -1: killed by a signal, timed out, or not started
  std::string error;    // why it failed, with the tail of its stderr
};

// Runs argv[0] (a path) in `cwd` with `env`, stdout to /dev/null, stderr kept in `stderr_file`
// (shown in `error` when the exit is not 0). Killed after `timeout_s`.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd,
                          const std::vector<std::string>& env, const std::string& stderr_file, int timeout_s = 120);

// `keel_run_bench --measure-child RSS_FILE -- PROGRAM ARGS...`: runs PROGRAM in a forked child,
// writes its peak RSS (KB) to RSS_FILE and exits with its status (see run_process()).
int measure_child_main(int argc, char** argv);

// The environment of this process with HOME, XDG_* and KEEL_HOME pointed into `root`, so a child
// neither reads the user's configuration nor writes the user's database.
std::vector<std::string> scratch_env(const std::string& root);

// A fresh folder under $TMPDIR (or /tmp), and its removal.
std::string make_temp_dir(const char* prefix);
void remove_tree(const std::string& path);

// The mock model server in its own process: started with its stdin and stdout on pipes, the base
// URL read from its first line; stopped by closing its stdin (and SIGTERM, then SIGKILL).
class MockServer {
 public:
  MockServer() = default;
  MockServer(const MockServer&) = delete;
  MockServer& operator=(const MockServer&) = delete;
  ~MockServer() { stop(); }
  // `extra`: more arguments for the server (e.g. --text for the answer).
  bool start(const std::string& binary, std::string& error, const std::vector<std::string>& extra = {});
  void stop();
  const std::string& base_url() const { return base_url_; }

 private:
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  std::string base_url_;
};

// ---------------------------------------------------------------- HTTP (run_bench_floor.cpp)

// One single-threaded libcurl easy handle, reused (keep-alive) for every request.
class FloorLoop {
 public:
  explicit FloorLoop(const std::string& base_url);
  ~FloorLoop();
  FloorLoop(const FloorLoop&) = delete;
  FloorLoop& operator=(const FloorLoop&) = delete;
  // One conversation of `rounds` tool calls and the closing text; false (with `error`) when a
  // request failed or the replies were not what the mock sends.
  bool run(int rounds, std::string& error);

 private:
  void* curl_ = nullptr;
  void* headers_ = nullptr;
  std::string url_;
};

// The mock's count of chat requests (GET /stats), or -1 when it cannot be read.
long mock_chat_requests(const std::string& base_url);

}  // namespace runbench
