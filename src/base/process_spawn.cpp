// Starting child processes with posix_spawn; see process_spawn.hpp.
#include "base/process_spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

// One descriptor, closed on destruction unless released.
struct OwnedFd {
  int fd = -1;
  OwnedFd() = default;
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  ~OwnedFd() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  int release() {
    const int out = fd;
    fd = -1;
    return out;
  }
};

// The two ends of one standard stream's pipe: the child's and ours.
struct StreamPipe {
  OwnedFd child_end;
  OwnedFd our_end;
};

// Makes the pipe of standard stream `target` (0, 1 or 2); errno on failure, else 0.
int open_stream_pipe(int target, StreamPipe& p) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return errno;
  const bool child_reads = target == STDIN_FILENO;
  p.child_end.fd = child_reads ? fds[0] : fds[1];
  p.our_end.fd = child_reads ? fds[1] : fds[0];
  // Only our end is non-blocking; the child's end keeps blocking reads and writes.
  ::fcntl(p.our_end.fd, F_SETFL, ::fcntl(p.our_end.fd, F_GETFL) | O_NONBLOCK);
  return 0;
}

Status generic_failure(const SpawnRequest& request, const SpawnFailure& f) {
  if (f.step == SpawnFailure::Step::kPipe) {
    return Status::Unavailable(
        concat({"cannot create a pipe for the child's ", f.stream, ": ", std::strerror(f.error)}));
  }
  return Status::Unavailable(concat({"cannot start '", request.program, "': ", std::strerror(f.error)}));
}

Status failure_status(const SpawnRequest& request, SpawnFailure f) {
  return request.describe_failure ? request.describe_failure(f) : generic_failure(request, f);
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// `path` as the child will see it once it runs in `cwd`.
std::string seen_from(const std::string& path, const std::string& cwd) {
  if (cwd.empty() || (!path.empty() && path[0] == '/')) return path;
  std::string out = cwd;
  out.append("/").append(path);
  return out;
}

// Pointers into `strings`, ended by nullptr: the shape posix_spawn wants.
std::vector<char*> c_array(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

Result<SpawnedProcess> spawn_process(const SpawnRequest& request) {
  static constexpr const char* kNames[] = {"stdin", "stdout", "stderr"};
  const ChildStream wanted[] = {request.stdin_stream, request.stdout_stream, request.stderr_stream};
  StreamPipe pipes[3];
  for (int target = 0; target < 3; ++target) {
    if (wanted[target] != ChildStream::kPipe) continue;
    if (const int err = open_stream_pipe(target, pipes[target]); err != 0) {
      return failure_status(request, {SpawnFailure::Step::kPipe, kNames[target], err});
    }
  }

  // Each inherited descriptor is first copied above every target number, so that no dup2 onto a
  // target can overwrite a descriptor still to be copied; the copies are close-on-exec.
  int first_free = STDERR_FILENO + 1;
  for (const InheritedFd& in : request.inherited_fds) {
    if (in.fd < 0 || in.target <= STDERR_FILENO) {
      return Status::InvalidArgument("an inherited descriptor needs a valid descriptor and a target above 2");
    }
    first_free = std::max(first_free, in.target + 1);
  }
  std::vector<OwnedFd> copies(request.inherited_fds.size());
  for (size_t i = 0; i < request.inherited_fds.size(); ++i) {
    copies[i].fd = ::fcntl(request.inherited_fds[i].fd, F_DUPFD_CLOEXEC, first_free);
    if (copies[i].fd < 0) {
      return Status::Unavailable(concat({"cannot pass a descriptor to the child: ", std::strerror(errno)}));
    }
  }

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  for (int target = 0; target < 3; ++target) {
    if (wanted[target] == ChildStream::kPipe) {
      // dup2 clears close-on-exec on the copy; the original stays close-on-exec.
      posix_spawn_file_actions_adddup2(&actions, pipes[target].child_end.fd, target);
    } else {
      const int mode = target == STDIN_FILENO ? O_RDONLY : O_WRONLY;
      posix_spawn_file_actions_addopen(&actions, target, "/dev/null", mode, 0);
    }
  }
  std::vector<bool> is_target(static_cast<size_t>(first_free), false);
  for (size_t i = 0; i < copies.size(); ++i) {
    const int target = request.inherited_fds[i].target;
    if (is_target[static_cast<size_t>(target)]) {
      posix_spawn_file_actions_destroy(&actions);
      posix_spawnattr_destroy(&attr);
      return Status::InvalidArgument("two inherited descriptors ask for the same number");
    }
    is_target[static_cast<size_t>(target)] = true;
    posix_spawn_file_actions_adddup2(&actions, copies[i].fd, target);  // clears close-on-exec on the target
  }
  for (int fd = STDERR_FILENO + 1; fd < first_free; ++fd) {
    if (!is_target[static_cast<size_t>(fd)]) posix_spawn_file_actions_addclose(&actions, fd);  // not open: ignored
  }
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  posix_spawn_file_actions_addclosefrom_np(&actions, first_free);  // descriptors opened without O_CLOEXEC
#endif
  if (!request.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, request.cwd.c_str());

  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (request.new_process_group) {
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(&attr, 0);
  }
  posix_spawnattr_setflags(&attr, flags);
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setsigmask(&attr, &empty);
  sigset_t defaults;
  if (request.default_signals.empty()) {
    sigfillset(&defaults);
  } else {
    sigemptyset(&defaults);
    for (int sig : request.default_signals) sigaddset(&defaults, sig);
  }
  posix_spawnattr_setsigdefault(&attr, &defaults);

  std::vector<std::string> argv_store = request.argv;
  std::vector<std::string> env_store = request.env;
  std::vector<char*> argv = c_array(argv_store);
  std::vector<char*> envp = c_array(env_store);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, request.program.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return failure_status(request, {SpawnFailure::Step::kSpawn, "", rc});

  SpawnedProcess child;
  child.pid = pid;
  child.stdin_fd = pipes[STDIN_FILENO].our_end.release();
  child.stdout_fd = pipes[STDOUT_FILENO].our_end.release();
  child.stderr_fd = pipes[STDERR_FILENO].our_end.release();
  return child;  // the child's ends close with `pipes`
}

std::optional<std::string> find_program(const std::string& command, const std::string& path_value,
                                        const std::string& cwd) {
  if (command.find('/') != std::string::npos) {
    if (is_executable_file(seen_from(command, cwd))) return command;
    return std::nullopt;
  }
  size_t begin = 0;
  for (;;) {
    const size_t end = path_value.find(':', begin);
    std::string dir = path_value.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    if (dir.empty()) dir.push_back('.');  // an empty entry is the current directory
    std::string candidate = dir;
    candidate.append("/").append(command);
    if (is_executable_file(seen_from(candidate, cwd))) return candidate;
    if (end == std::string::npos) return std::nullopt;
    begin = end + 1;
  }
}

std::string describe_wait_status(int status) {
  if (status == -1) return "exited (its exit status is unknown: it was reaped elsewhere)";
  if (WIFEXITED(status)) return concat({"exited with code ", std::to_string(WEXITSTATUS(status))});
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    std::string out = concat({"was killed by signal ", std::to_string(sig)});
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
    if (const char* name = ::sigabbrev_np(sig)) out.append(" (SIG").append(name).append(")");
#endif
    return out;
  }
  return concat({"ended with wait status ", std::to_string(status)});
}

}  // namespace keel::detail
