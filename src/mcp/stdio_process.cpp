#include "mcp/stdio_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace keel::mcp::detail {
namespace {

constexpr const char* kDefaultPath = "/usr/local/bin:/usr/bin:/bin";

// Both ends of a pipe, closed on destruction unless released.
struct Pipe {
  int read_fd = -1;
  int write_fd = -1;
  Pipe() = default;
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  ~Pipe() {
    close_end(read_fd);
    close_end(write_fd);
  }
  static void close_end(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  static int release(int& fd) {
    const int out = fd;
    fd = -1;
    return out;
  }
};

Status open_pipe(Pipe& p, const char* which) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    std::string msg = "cannot start MCP server: cannot create its ";
    msg.append(which).append(" pipe: ").append(std::strerror(errno));
    return Status::Unavailable(std::move(msg));
  }
  p.read_fd = fds[0];
  p.write_fd = fds[1];
  return Status::Ok();
}

void set_nonblocking(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
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

std::string quoted(const std::string& s) {
  return concat({"'", s, "'"});
}

std::string spawn_error(int rc, const std::string& program) {
  std::string msg = "cannot start MCP server: ";
  msg.append(quoted(program));
  switch (rc) {
    case ENOENT:
      msg.append(" not found (or its #! interpreter is missing)");
      break;
    case EACCES:
      msg.append(" is not executable: permission denied");
      break;
    case ENOEXEC:
      msg.append(" is not a program this system can run (a script needs a #! line)");
      break;
    default:
      msg.append(": ").append(std::strerror(rc));
  }
  return msg;
}

}  // namespace

Result<std::string> resolve_command(const std::string& command, const std::string& path_value, const std::string& cwd) {
  if (command.find('/') != std::string::npos) {
    if (is_executable_file(seen_from(command, cwd))) return command;
    return Status::NotFound(concat({"cannot start MCP server: ", quoted(command),
                                    " not found or not an executable file; check the command's path"}));
  }
  size_t begin = 0;
  for (;;) {
    const size_t end = path_value.find(':', begin);
    std::string dir = path_value.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    if (dir.empty()) dir.push_back('.');  // an empty entry is the current directory
    std::string candidate = dir;
    candidate.append("/").append(command);
    if (is_executable_file(seen_from(candidate, cwd))) return candidate;
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  std::string msg = "cannot start MCP server: ";
  msg.append(quoted(command)).append(" not found on PATH; install it, give its full path, or set PATH in the ");
  msg.append("server's env (PATH=").append(path_value).append(")");
  return Status::NotFound(std::move(msg));
}

std::vector<std::string> child_environment(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq != std::string::npos && overrides.count(entry.substr(0, eq)) != 0) continue;
    out.push_back(entry);
  }
  for (const auto& [name, value] : overrides) {
    std::string entry = name;
    entry.append("=").append(value);
    out.push_back(std::move(entry));
  }
  return out;
}

Result<ChildProcess> spawn_child(const StdioServerSpec& spec) {
  if (spec.command.empty()) return Status::InvalidArgument("cannot start MCP server: its command is empty");
  if (!spec.cwd.empty()) {
    struct stat st {};
    if (::stat(spec.cwd.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return Status::NotFound(concat({"cannot start MCP server ", quoted(spec.command), ": its working directory ",
                                      quoted(spec.cwd), " is not an existing directory"}));
    }
  }
  std::vector<std::string> env = child_environment(spec.env);
  std::string path_value = kDefaultPath;
  for (const std::string& entry : env) {
    if (entry.rfind("PATH=", 0) == 0) path_value = entry.substr(5);
  }
  KEEL_ASSIGN_OR_RETURN(const std::string program, resolve_command(spec.command, path_value, spec.cwd));

  Pipe in, out, err;
  KEEL_TRY(open_pipe(in, "stdin"));
  KEEL_TRY(open_pipe(out, "stdout"));
  KEEL_TRY(open_pipe(err, "stderr"));

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  // dup2 clears close-on-exec on the copies; every other descriptor of ours is close-on-exec or
  // closed below, so nothing else reaches the server.
  posix_spawn_file_actions_adddup2(&actions, in.read_fd, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out.write_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.write_fd, STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);  // descriptors opened without O_CLOEXEC
#endif
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());

  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);  // its own group: close() signals the server and its helpers
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setsigmask(&attr, &empty);
  sigset_t all;
  sigfillset(&all);
  posix_spawnattr_setsigdefault(&attr, &all);

  std::vector<std::string> argv_store;
  argv_store.reserve(spec.args.size() + 1);
  argv_store.push_back(spec.command);
  for (const std::string& a : spec.args) argv_store.push_back(a);
  std::vector<char*> argv;
  for (std::string& a : argv_store) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    return Status(rc == ENOENT ? ErrorCode::kNotFound : ErrorCode::kUnavailable, spawn_error(rc, program));
  }

  ChildProcess child;
  child.pid = pid;
  child.stdin_fd = Pipe::release(in.write_fd);
  child.stdout_fd = Pipe::release(out.read_fd);
  child.stderr_fd = Pipe::release(err.read_fd);
  set_nonblocking(child.stdin_fd);
  set_nonblocking(child.stdout_fd);
  set_nonblocking(child.stderr_fd);
  return child;
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

}  // namespace keel::mcp::detail
