// keel_autopilot_bench — the autopilot as users run it: `keel autopilot run` in its own process
// with 10 sources (7 folders, a schedule, a git repository, an HTTP URL), its database on, and a
// model server in another process (keel_mock_model_server, answering every skill call with a
// note to propose).
//
//   keel_autopilot_bench [--idle-seconds S] [--drops N]
//
// Prints:
//   idle    the autopilot's CPU use (utime + stime from /proc over S seconds, after a warm-up) and
//           its resident memory (VmRSS, and the peak VmHWM)
//   latency for N files dropped one at a time into the watched folder (written aside and renamed
//           in, as editors and downloads do): the time from the rename to the proposal being in
//           the database, read by this process (median, p90, max)
//   beside  the same skill run by hand (`keel skills run write-note`, a whole process) against the
//           same server: what one event would cost without a daemon
// Exit 0 when every measurement worked; 1 with a message otherwise (not a timing check).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "run_bench.hpp"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

void write_file(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// The first column of the first row of `sql` in the database, or -1.
long long query_int(const std::string& db_path, const char* sql) {
  sqlite3* db = nullptr;
  long long n = -1;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 200);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
      n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}

// CPU time of every thread of `pid` in nanoseconds (the first field of each
// /proc/PID/task/TID/schedstat), finer than the clock ticks of /proc/PID/stat.
long long cpu_ns(pid_t pid) {
  long long total = 0;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream in(task.path() / "schedstat");
    long long ns = 0;
    if (in >> ns) total += ns;
  }
  return total;
}

// A "VmRSS:" style line of /proc/PID/status, in KB.
long status_kb(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + key.size());
  }
  return -1;
}

pid_t spawn(const std::vector<std::string>& argv, const std::string& cwd, std::vector<std::string> env,
            const std::string& log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<std::string> args = argv;
  std::vector<char*> argp, envp;
  for (auto& a : args) argp.push_back(a.data());
  argp.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  int err = posix_spawn(&pid, args[0].c_str(), &fa, nullptr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  return err == 0 ? pid : -1;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

int fail(const std::string& message, const std::string& log = "") {
  std::fprintf(stderr, "keel_autopilot_bench: %s\n", message.c_str());
  if (!log.empty()) {
    std::ifstream in(log);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "  keel's stderr:\n%s\n", s.substr(s.size() > 4000 ? s.size() - 4000 : 0).c_str());
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  // run_process() measures its child through this program (as keel_run_bench does).
  if (argc > 1 && std::strcmp(argv[1], "--measure-child") == 0) return runbench::measure_child_main(argc, argv);
  int idle_seconds = 5, drops = 10;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--idle-seconds" && i + 1 < argc) {
      idle_seconds = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--drops" && i + 1 < argc) {
      drops = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: keel_autopilot_bench [--idle-seconds S] [--drops N]\n");
      return 2;
    }
  }
  const std::string root = runbench::make_temp_dir("keel-autopilot-bench");
  if (root.empty()) return fail("cannot make a temporary folder");
  struct Cleanup {
    std::string root;
    ~Cleanup() { runbench::remove_tree(root); }
  } cleanup{root};
  const std::string ws = root + "/ws";
  const std::vector<std::string> env = runbench::scratch_env(root);
  const std::string db = root + "/keel/keel.db";

  runbench::MockServer mock;
  std::string error;
  const std::string note = R"({"summary":"file a note","file":{"path":"notes/n.md","content":"seen"}})";
  if (!mock.start(KEEL_MOCK_MODEL_SERVER, error, {"--steps", "0", "--text", note})) return fail(error);

  // The workspace: a proposal skill, 10 sources, one trigger.
  write_file(ws + "/.keel/skills/write-note/skill.json",
             R"({"id": "write-note", "outputSchema": {"type": "object", "required": ["summary", "file"]},
                 "approvalMode": "proposal", "action": {"tool": "fs_write", "argumentsPointer": "/file"}})");
  write_file(ws + "/.keel/skills/write-note/SKILL.md", "---\nname: write-note\n---\nPropose a note about the file.\n");
  std::string yaml = "model: mock-steps-0\nbase_url: " + mock.base_url() +
                     "\nretry: {max_attempts: 1}\nautopilot:\n  sources:\n"
                     "    - {name: inbox, files: inbox, glob: '*.txt'}\n";
  for (int i = 1; i <= 6; ++i) {
    std::filesystem::create_directories(ws + "/watch" + std::to_string(i));
    yaml += "    - {name: watch" + std::to_string(i) + ", files: watch" + std::to_string(i) + "}\n";
  }
  yaml += "    - {name: nightly, schedule: '0 3 * * *'}\n"
          "    - {name: repo, git: repo, every_ms: 10000}\n"
          "    - {name: models, http: '" + mock.base_url() + "/models', every_ms: 60000}\n"
          "  triggers:\n    - {source: inbox, skills: [write-note]}\n";
  write_file(ws + "/keel.yaml", yaml);
  std::filesystem::create_directories(ws + "/inbox");
  if (std::system(("git init -q '" + ws + "/repo' && git -c user.name=b -c user.email=b@example.test -C '" + ws +
                   "/repo' commit -q --allow-empty -m start")
                      .c_str()) != 0) {
    return fail("git is needed for the git source");
  }

  // By hand, for comparison: one skill run as its own process (after one warm-up run).
  std::vector<double> by_hand;
  for (int i = 0; i < 4; ++i) {
    auto t = Clock::now();
    runbench::ProcessResult r = runbench::run_process({KEEL_BINARY, "skills", "run", "write-note", "--input",
                                                       R"({"text":"x"})"},
                                                      ws, env, root + "/by-hand.log");
    if (r.exit_code != 0) return fail("keel skills run failed: " + r.error);
    if (i > 0) by_hand.push_back(ms_since(t));
  }
  const long long by_hand_proposals = query_int(db, "SELECT COUNT(*) FROM skill_proposals");

  const std::string log = root + "/autopilot.log";
  pid_t pid = spawn({KEEL_BINARY, "autopilot", "run"}, ws, env, log);
  if (pid < 0) return fail("cannot start keel autopilot run");
  auto started = Clock::now();
  while (query_int(db, "SELECT COUNT(*) FROM daemon_status WHERE name = 'autopilot'") < 1) {
    if (ms_since(started) > 10000 || ::waitpid(pid, nullptr, WNOHANG) != 0) {
      ::kill(pid, SIGKILL);
      return fail("the autopilot did not start", log);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));  // warm-up: first polls of every source

  const long long t0 = cpu_ns(pid);
  auto idle_start = Clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(idle_seconds));
  const long long t1 = cpu_ns(pid);
  const double idle_s = ms_since(idle_start) / 1000.0;
  const double cpu_ms = static_cast<double>(t1 - t0) / 1e6;
  const double cpu_percent = 100.0 * cpu_ms / 1000.0 / idle_s;
  const long rss_kb = status_kb(pid, "VmRSS:");

  std::vector<double> latencies;
  for (int i = 1; i <= drops; ++i) {
    const std::string aside = ws + "/drop-" + std::to_string(i) + ".tmp";
    write_file(aside, "report number " + std::to_string(i) + "\n");
    auto t = Clock::now();
    std::filesystem::rename(aside, ws + "/inbox/drop-" + std::to_string(i) + ".txt");
    while (query_int(db, "SELECT COUNT(*) FROM skill_proposals") < by_hand_proposals + i) {
      if (ms_since(t) > 15000) {
        ::kill(pid, SIGKILL);
        return fail("no proposal 15 s after dropping file " + std::to_string(i), log);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    latencies.push_back(ms_since(t));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const long hwm_kb = status_kb(pid, "VmHWM:");
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return fail("keel autopilot run did not stop cleanly", log);

  std::printf("keel autopilot, 10 sources (7 folders, schedule, git, http), database on, model server in another process\n");
  std::printf("idle     CPU %.3f%% of one core (%.1f ms over %.1f s, a cycle every 1.5 s), RSS %.1f MB\n",
              cpu_percent, cpu_ms, idle_s, static_cast<double>(rss_kb) / 1024.0);
  std::printf("latency  file event -> proposal stored: median %.1f ms, p90 %.1f ms, max %.1f ms (%d drops)\n",
              percentile(latencies, 0.5), percentile(latencies, 0.9), percentile(latencies, 1.0), drops);
  std::printf("beside   the same skill by hand (keel skills run, whole process): median %.1f ms; "
              "autopilot/by-hand %.2f\n",
              percentile(by_hand, 0.5), percentile(latencies, 0.5) / percentile(by_hand, 0.5));
  std::printf("memory   peak RSS over the run %.1f MB\n", static_cast<double>(hwm_kb) / 1024.0);
  return 0;
}
