#include "base/subprocess.hpp"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <thread>
#include <vector>

#include "base/process_spawn.hpp"
#include "base/sandbox.hpp"
#include "core/text/utf8_text.hpp"

namespace keel::detail {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kTermGrace{200};   // SIGTERM -> SIGKILL
constexpr milliseconds kDrainGrace{200};  // shell exited; pipes still held by background jobs
constexpr milliseconds kPollSlice{50};    // longest sleep between stop-token checks

std::string errno_text(int err) { return std::strerror(err); }

// The read end of one of the child's output pipes, closed on destruction.
struct Pipe {
  int read_fd = -1;
  explicit Pipe(int fd) : read_fd(fd) {}
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  ~Pipe() { close_read(); }
  void close_read() {
    if (read_fd >= 0) ::close(read_fd);
    read_fd = -1;
  }
};

// Signals a host commonly ignores or handles; the command gets their defaults.
const std::vector<int> kDefaultSignals = {SIGPIPE, SIGINT,  SIGQUIT, SIGTERM, SIGHUP,  SIGCHLD,
                                          SIGALRM, SIGUSR1, SIGUSR2, SIGTSTP, SIGTTIN, SIGTTOU};

// Spawns /bin/sh -c (or the sandbox's launcher) in a new process group, stdin from /dev/null (or
// a pipe for SubprocessRequest::input), stdout and stderr into pipes.
Result<SpawnedProcess> spawn_shell(const SubprocessRequest& req, const SandboxLaunch* sandbox) {
  SpawnRequest spawn;
  if (sandbox != nullptr) {
    sandbox->fill(spawn);
  } else {
    spawn.program = "/bin/sh";
    spawn.argv = {"sh", "-c", req.command};
    spawn.env = req.env;
  }
  spawn.cwd = req.cwd;
  spawn.stdin_stream = req.input.empty() ? ChildStream::kNull : ChildStream::kPipe;
  spawn.stdout_stream = ChildStream::kPipe;
  spawn.stderr_stream = ChildStream::kPipe;
  spawn.new_process_group = true;  // its own group, so the whole tree can be signalled
  spawn.default_signals = kDefaultSignals;
  spawn.describe_failure = [&req](const SpawnFailure& f) {
    if (f.step == SpawnFailure::Step::kPipe) {
      return Status::Unavailable("cannot run the command: cannot create a pipe: " + errno_text(f.error));
    }
    std::string where =
        f.error == ENOENT || f.error == ENOTDIR ? " (is the working directory '" + req.cwd + "' there?)" : "";
    return Status::Unavailable("cannot start /bin/sh: " + errno_text(f.error) + where);
  };
  return spawn_process(spawn);
}

// Reads what is available from `p` (at most 256 KiB, so a fast writer cannot keep us from
// checking the deadline) into the result; closes it on end of file or error.
void drain(Pipe& p, SubprocessResult& r, size_t cap, std::string& into) {
  char buf[16 * 1024];
  for (int round = 0; round < 16; ++round) {
    const ssize_t n = ::read(p.read_fd, buf, sizeof buf);
    if (n > 0) {
      const size_t got = static_cast<size_t>(n);
      if (&into == &r.output) r.total_bytes += got;
      if (into.size() < cap) into.append(buf, std::min(got, cap - into.size()));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    p.close_read();  // EOF or a read error
    return;
  }
}

// Writes what the child's stdin pipe takes of `input` from `*written` on; closes the pipe when
// all is written or the child stopped reading (EPIPE, its SIGPIPE taken back off this thread).
void feed(int& fd, const std::string& input, size_t* written) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  sigset_t pending;
  sigemptyset(&pending);
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  bool raised = false;
  while (*written < input.size()) {
    const ssize_t n = ::write(fd, input.data() + *written, input.size() - *written);
    if (n > 0) {
      *written += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    raised = n < 0 && errno == EPIPE;
    *written = input.size();  // the child is not reading: give up on the rest
  }
  if (raised && !was_pending) {
    const timespec zero{0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (*written >= input.size()) {
    ::close(fd);
    fd = -1;
  }
}

// waitpid without blocking; true once `pid` has been reaped (status in *status).
bool reaped(pid_t pid, int* status) {
  for (;;) {
    const pid_t r = ::waitpid(pid, status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {  // ECHILD: someone else reaped it (e.g. SIGCHLD ignored); status unknown
      *status = -1;
      return true;
    }
    return false;
  }
}

void reap_blocking(pid_t pid, int* status) {
  while (::waitpid(pid, status, 0) < 0) {
    if (errno != EINTR) {
      *status = -1;
      return;
    }
  }
}

// Kills what is left of the group and reaps members that were re-parented to us (possible only
// when this process is a child subreaper); gives up after a short while.
void clean_up_group(pid_t pgid) {
  ::kill(-pgid, SIGKILL);
  const auto until = Clock::now() + milliseconds(200);
  while (Clock::now() < until) {
    int status = 0;
    const pid_t r = ::waitpid(-pgid, &status, WNOHANG);
    if (r > 0) continue;
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return;  // ECHILD: none of our children is left in the group
    std::this_thread::sleep_for(milliseconds(2));
  }
}

}  // namespace

Result<SubprocessResult> run_subprocess(const SubprocessRequest& req) {
  const auto start = Clock::now();
  const auto deadline = start + req.timeout;
  std::unique_ptr<SandboxLaunch> sandbox;
  if (req.sandbox && req.sandbox->mode != SandboxMode::kOff) {
    KEEL_ASSIGN_OR_RETURN(sandbox, SandboxLaunch::prepare(*req.sandbox, req.cwd, req.command, req.env));
  }
  KEEL_ASSIGN_OR_RETURN(const SpawnedProcess child, spawn_shell(req, sandbox.get()));
  const pid_t pid = child.pid;
  Pipe out(child.stdout_fd), err(child.stderr_fd);
  int in_fd = child.stdin_fd;
  size_t input_written = 0;
  if (sandbox) {
    if (Status started = sandbox->start(pid); !started.ok()) {
      ::kill(-pid, SIGKILL);
      int ignored = 0;
      reap_blocking(pid, &ignored);
      if (in_fd >= 0) ::close(in_fd);
      return started;
    }
  }

  SubprocessResult r;
  r.pgid = pid;
  int status = 0;
  bool exited = false;
  Clock::time_point exited_at;
  std::vector<Pipe*> pipes = {&out, &err};
  for (;;) {
    const auto now = Clock::now();
    if (!exited && reaped(pid, &status)) {
      exited = true;
      exited_at = now;
    }
    const bool open = out.read_fd >= 0 || err.read_fd >= 0;
    Clock::time_point wake;
    if (!exited) {
      if (req.stop.stop_requested()) {
        r.end = SubprocessResult::End::kCancelled;
        break;
      }
      if (now >= deadline) {
        r.end = SubprocessResult::End::kTimedOut;
        break;
      }
      wake = std::min(deadline, now + (open ? kPollSlice : milliseconds(5)));
    } else {
      if (!open || now >= exited_at + kDrainGrace) break;
      wake = std::min(exited_at + kDrainGrace, now + kPollSlice);
    }
    const int wait_ms = static_cast<int>(
        std::max<int64_t>(1, std::chrono::duration_cast<milliseconds>(wake - now).count()));
    std::vector<pollfd> fds;
    for (Pipe* p : pipes) {
      if (p->read_fd >= 0) fds.push_back({p->read_fd, POLLIN, 0});
    }
    if (in_fd >= 0) fds.push_back({in_fd, POLLOUT, 0});
    const int ready = ::poll(fds.data(), fds.size(), wait_ms);
    if (ready <= 0) continue;
    for (Pipe* p : pipes) {  // drained in the order poll() saw them ready
      for (const pollfd& f : fds) {
        if (f.fd == p->read_fd && (f.revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
          drain(*p, r, req.max_output_bytes, p == &err && req.separate_stderr ? r.error_output : r.output);
        }
      }
    }
    for (const pollfd& f : fds) {
      if (in_fd >= 0 && f.fd == in_fd && f.revents != 0) feed(in_fd, req.input, &input_written);
    }
  }
  if (in_fd >= 0) ::close(in_fd);

  if (!exited) {
    ::kill(-pid, SIGTERM);
    const auto kill_at = Clock::now() + kTermGrace;
    while (!(exited = reaped(pid, &status)) && Clock::now() < kill_at) {
      std::this_thread::sleep_for(milliseconds(5));
    }
    if (!exited) {
      ::kill(-pid, SIGKILL);
      reap_blocking(pid, &status);
    }
  }
  clean_up_group(pid);
  if (sandbox) {
    const bool ran = sandbox->command_started();
    sandbox.reset();  // removes the cgroup, killing anything left in it
    if (!ran && r.end == SubprocessResult::End::kExited) return SandboxLaunch::start_failure(r.output + r.error_output);
  }

  if (r.end == SubprocessResult::End::kExited) {
    if (status == -1) {
      r.exit_code = -1;
    } else if (WIFSIGNALED(status)) {
      r.end = SubprocessResult::End::kSignaled;
      r.signal = WTERMSIG(status);
    } else {
      r.exit_code = WEXITSTATUS(status);
    }
  }
  r.truncated = r.total_bytes > r.output.size();
  if (r.truncated) r.output.resize(utf8_complete_prefix(r.output));
  r.elapsed_ms = std::chrono::duration_cast<milliseconds>(Clock::now() - start).count();
  return r;
}

}  // namespace keel::detail
