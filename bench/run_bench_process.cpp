// keel_run_bench's child processes: a keel run timed from spawn to reaped with its peak RSS
// (posix_spawn + wait4, as bench/loop_bench.cpp does, plus a pidfd so a hung child is killed
// instead of hanging the benchmark), the scratch environment, and the mock model server process.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "run_bench.hpp"

extern char** environ;

namespace runbench {
namespace {

using Clock = std::chrono::steady_clock;

int pidfd_of(pid_t pid) {
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
}

// Waits up to `timeout_ms` for the child to end (true), without reaping it.
bool wait_exit(pid_t pid, int pidfd, int timeout_ms) {
  if (pidfd < 0) {  // no pidfd (old kernel): poll the child every millisecond
    for (int waited = 0; waited < timeout_ms; ++waited) {
      siginfo_t info{};
      if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) {
        return true;
      }
      ::usleep(1000);
    }
    return false;
  }
  pollfd p{pidfd, POLLIN, 0};
  for (;;) {
    int r = ::poll(&p, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    return r > 0;
  }
}

std::string tail_of(const std::string& path, size_t max = 4000) {
  std::ifstream in(path, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return s.size() > max ? "..." + s.substr(s.size() - max) : s;
}

std::string self_path() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("/proc/self/exe");
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

int measure_child_main(int argc, char** argv) {
  // argv: self --measure-child RSS_FILE -- PROGRAM ARGS...
  if (argc < 5 || std::strcmp(argv[3], "--") != 0) return 127;
  const auto started = Clock::now();
  const pid_t child = ::fork();
  if (child < 0) return 127;
  if (child == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with this helper when a timeout kills it
    ::execv(argv[4], argv + 4);
    ::_exit(127);
  }
  int status = 0;
  rusage ru{};
  while (::wait4(child, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  const double wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  if (FILE* out = std::fopen(argv[2], "w")) {
    std::fprintf(out, "%ld %.6f\n", ru.ru_maxrss, wall_ms);
    std::fclose(out);
  }
  if (WIFSIGNALED(status)) ::raise(WTERMSIG(status));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd,
                          const std::vector<std::string>& env, const std::string& stderr_file, int timeout_s) {
  // The child is started by a small helper (this program, re-executed) with a real fork: a child
  // spawned straight from here would report this process's own peak RSS as its floor.
  const std::string rss_file = stderr_file + ".rss";
  std::vector<std::string> args{self_path(), "--measure-child", rss_file, "--"};
  args.insert(args.end(), argv.begin(), argv.end());
  std::vector<std::string> envs = env;
  std::vector<char*> argp = pointers(args), envp = pointers(envs);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
  ProcessResult r;
  pid_t pid = -1;
  const auto t = Clock::now();
  int err = posix_spawn(&pid, argp[0], &fa, nullptr, argp.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (err != 0) {
    r.error = "cannot start " + argv[0] + ": " + std::strerror(err);
    return r;
  }
  int pidfd = pidfd_of(pid);
  bool timed_out = !wait_exit(pid, pidfd, timeout_s * 1000);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  rusage ru{};
  while (::wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  r.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  if (pidfd >= 0) ::close(pidfd);
  r.max_rss_kb = 0;
  if (FILE* in = std::fopen(rss_file.c_str(), "r")) {
    // The child's own figures: the helper's start-up is not part of them.
    double wall_ms = 0;
    if (std::fscanf(in, "%ld %lf", &r.max_rss_kb, &wall_ms) == 2) r.wall_ms = wall_ms;
    std::fclose(in);
    std::remove(rss_file.c_str());
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (r.exit_code != 0) {
    std::string cmd;
    for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    r.error = cmd + (timed_out             ? "\n  timed out after " + std::to_string(timeout_s) + " s"
                     : WIFSIGNALED(status) ? "\n  killed by signal " + std::to_string(WTERMSIG(status))
                                           : "\n  exit " + std::to_string(r.exit_code));
    r.error += "\n  stderr:\n" + tail_of(stderr_file);
  }
  return r;
}

std::vector<std::string> scratch_env(const std::string& root) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string v = *e;
    std::string name = v.substr(0, v.find('='));
    // Anything that could point keel at the user's files or another backend stays out.
    if (name == "HOME" || name.starts_with("XDG_") || name.starts_with("KEEL_") || name.starts_with("OPENAI_") ||
        name.starts_with("ANTHROPIC_")) {
      continue;
    }
    env.push_back(std::move(v));
  }
  for (const char* sub : {"home", "config", "data", "cache", "state", "keel"}) {
    std::filesystem::create_directories(root + "/" + sub);
  }
  env.push_back("HOME=" + root + "/home");
  env.push_back("XDG_CONFIG_HOME=" + root + "/config");
  env.push_back("XDG_DATA_HOME=" + root + "/data");
  env.push_back("XDG_CACHE_HOME=" + root + "/cache");
  env.push_back("XDG_STATE_HOME=" + root + "/state");
  env.push_back("KEEL_HOME=" + root + "/keel");  // the database: $KEEL_HOME/keel.db
  return env;
}

std::string make_temp_dir(const char* prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) return "";
  return pattern;
}

void remove_tree(const std::string& path) {
  std::error_code ec;
  if (!path.empty()) std::filesystem::remove_all(path, ec);
}

bool MockServer::start(const std::string& binary, std::string& error, const std::vector<std::string>& extra) {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);  // dup2 clears close-on-exec on 0 and 1
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  std::vector<std::string> args = {binary};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argp = pointers(args);
  int err = posix_spawn(&pid_, binary.c_str(), &fa, nullptr, argp.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(in[0]);
  ::close(out[1]);
  stdin_fd_ = in[1];  // close-on-exec: no keel child holds it open, so closing it is the mock's EOF
  if (err != 0) {
    pid_ = -1;
    ::close(out[0]);
    error = "cannot start " + binary + ": " + std::strerror(err);
    return false;
  }
  std::string line;
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (line.find('\n') == std::string::npos && Clock::now() < deadline) {
    pollfd p{out[0], POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    char buf[256];
    ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n <= 0) break;
    line.append(buf, static_cast<size_t>(n));
  }
  ::close(out[0]);
  const std::string prefix = "listening ";
  size_t nl = line.find('\n');
  if (nl == std::string::npos || !line.starts_with(prefix)) {
    error = "the mock model server did not say where it listens (got \"" + line + "\")";
    stop();
    return false;
  }
  base_url_ = line.substr(prefix.size(), nl - prefix.size());
  return true;
}

void MockServer::stop() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  stdin_fd_ = -1;
  if (pid_ <= 0) return;
  int pidfd = pidfd_of(pid_);
  if (!wait_exit(pid_, pidfd, 2000)) {
    ::kill(pid_, SIGTERM);
    if (!wait_exit(pid_, pidfd, 2000)) ::kill(pid_, SIGKILL);
  }
  if (pidfd >= 0) ::close(pidfd);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

}  // namespace runbench
