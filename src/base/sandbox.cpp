// Starting a command inside the OS sandbox; see sandbox.hpp.
#include "base/sandbox.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "base/seccomp_filter.hpp"

namespace keel::detail {

const char* const kSandboxHowTo =
    "To use the sandbox, install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
    "bubblewrap) and allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu "
    "23.10+ sysctl kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for bwrap; in a container, "
    "a seccomp profile that allows namespaces). To run commands without it, set tools.shell.sandbox: off in your "
    "keel config or pass --sandbox off.";

namespace {

namespace fs = std::filesystem;

constexpr int kGateFd = 3;     // the launcher reads "go" here once it is capped
constexpr int kSeccompFd = 4;  // bwrap's --seccomp
constexpr int kMarkerFd = 5;   // the command writes one byte here before it runs

// Waits for keel's "go", then execs bwrap ("$@") without the gate.
constexpr const char* kLauncherScript = "read -r go <&3 && [ \"$go\" = go ] || exit 125; exec \"$@\" 3<&-";
// Inside the sandbox: proves the command started, then runs it as `sh -c COMMAND` did before.
constexpr const char* kInnerScript = "printf x >&5 && exec /bin/sh -c \"$1\" sh 5>&-";

bool is_executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

bool is_real_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(fs::symlink_status(p, ec));
}

// `child` lies strictly inside `parent` (both canonical).
bool strictly_inside(const std::string& child, const std::string& parent) {
  if (parent == "/") return child != "/";
  return child.size() > parent.size() && child.compare(0, parent.size(), parent) == 0 && child[parent.size()] == '/';
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

// A folder the sandbox hides, and why (for the refusal message).
struct Hidden {
  std::string path;  // canonical
  std::string what;
};

// The folders to hide that exist (canonical, deduplicated, parents before children).
std::vector<Hidden> hidden_folders(const SandboxPolicy& policy) {
  std::vector<Hidden> wanted;
  const std::string home = env_or("HOME", "");
  wanted.push_back({"/tmp", "/tmp (replaced by a private one)"});
  wanted.push_back({"/run", "/run (host services' sockets)"});
  wanted.push_back({"/var/run", "/var/run (host services' sockets)"});
  if (!home.empty()) wanted.push_back({home, "your home folder ($HOME)"});
  const std::string keel_home = env_or("KEEL_HOME", home.empty() ? "" : home + "/.local/share/keel");
  if (!keel_home.empty()) wanted.push_back({keel_home, "keel's home folder with its database ($KEEL_HOME)"});
  const std::string config = env_or("XDG_CONFIG_HOME", "");
  if (!config.empty()) wanted.push_back({config, "your config folder ($XDG_CONFIG_HOME)"});
  for (const std::string& p : policy.hidden_paths) wanted.push_back({p, "a folder the configuration hides"});

  std::vector<Hidden> out;
  for (Hidden& h : wanted) {
    // A missing folder hides nothing; a symlink (/var/run -> /run, a $HOME elsewhere) is hidden
    // where it leads.
    std::error_code ec;
    const fs::path canonical = fs::canonical(h.path, ec);
    if (ec || canonical == "/" || !is_real_dir(canonical)) continue;
    h.path = canonical.string();
    if (std::none_of(out.begin(), out.end(), [&](const Hidden& o) { return o.path == h.path; })) out.push_back(h);
  }
  std::sort(out.begin(), out.end(), [](const Hidden& a, const Hidden& b) { return a.path < b.path; });
  return out;
}

void add(std::vector<std::string>& args, std::initializer_list<std::string> items) {
  args.insert(args.end(), items.begin(), items.end());
}

// A pipe whose ends are close-on-exec; errno on failure, else 0.
int make_pipe(int& read_end, int& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return errno;
  read_end = fds[0];
  write_end = fds[1];
  return 0;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

Result<std::string> find_bwrap(const SandboxPolicy& policy) {
  if (!policy.bwrap_path.empty()) {
    if (is_executable(policy.bwrap_path)) return policy.bwrap_path;
    return Status::FailedPrecondition("the shell sandbox needs bubblewrap, but '" + policy.bwrap_path +
                                      "' is not an executable file; the command did not run. " + kSandboxHowTo);
  }
  for (const char* candidate : {"/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"}) {
    if (is_executable(candidate)) return std::string(candidate);
  }
  return Status::FailedPrecondition(
      "the shell sandbox needs bubblewrap (bwrap), which is not installed (looked in /usr/bin, /usr/local/bin and "
      "/bin); the command did not run. " +
      std::string(kSandboxHowTo));
}

Result<std::vector<std::string>> bwrap_arguments(const SandboxPolicy& policy, const std::string& workspace,
                                                 int seccomp_fd) {
  std::error_code ec;
  const fs::path ws_path = fs::canonical(workspace, ec);
  if (ec || !fs::is_directory(ws_path, ec)) {
    return Status::FailedPrecondition("the shell sandbox cannot use the workspace '" + workspace +
                                      "': it is not an existing folder");
  }
  const std::string ws = ws_path.string();
  const std::vector<Hidden> hidden = hidden_folders(policy);
  for (const Hidden& h : hidden) {
    if (h.path != ws) continue;
    return Status::FailedPrecondition(
        "the shell sandbox cannot run commands in the workspace " + ws + ": it is " + h.what +
        ", which the sandbox hides from commands; the command did not run. Open keel in a project folder (-w DIR), "
        "or set tools.shell.sandbox: off in your keel config (or pass --sandbox off) to run commands unconfined");
  }

  std::vector<std::string> args;
  add(args, {"--unshare-all"});
  if (policy.network) add(args, {"--share-net"});
  add(args, {"--die-with-parent", "--new-session", "--cap-drop", "ALL"});
  add(args, {"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"});
  for (const Hidden& h : hidden) add(args, {"--tmpfs", h.path});
  if (policy.network) {
    // /etc/resolv.conf often points into /run (systemd-resolved): name lookups need it back.
    const fs::path resolv = fs::canonical("/etc/resolv.conf", ec);
    if (!ec && std::any_of(hidden.begin(), hidden.end(),
                           [&](const Hidden& h) { return strictly_inside(resolv.string(), h.path); })) {
      add(args, {"--ro-bind", resolv.string(), resolv.string()});
    }
  }
  add(args, {policy.mode == SandboxMode::kReadOnly ? "--ro-bind" : "--bind", ws, ws});
  for (const Hidden& h : hidden) {
    if (strictly_inside(h.path, ws)) add(args, {"--tmpfs", h.path});
  }
  if (policy.mode == SandboxMode::kWorkspaceWrite) {
    for (const char* name : {"keel.yaml", ".mcp.json"}) {
      const fs::path file = ws_path / name;
      if (fs::is_regular_file(fs::symlink_status(file, ec))) add(args, {"--ro-bind", file.string(), file.string()});
    }
  }
  add(args, {"--chdir", ws, "--seccomp", std::to_string(seccomp_fd)});
  return args;
}

Result<std::unique_ptr<SandboxLaunch>> SandboxLaunch::prepare(const SandboxPolicy& policy, const std::string& workspace,
                                                              const std::string& command,
                                                              std::vector<std::string> env) {
  KEEL_ASSIGN_OR_RETURN(const std::string bwrap, find_bwrap(policy));
  KEEL_ASSIGN_OR_RETURN(std::vector<std::string> args, bwrap_arguments(policy, workspace, kSeccompFd));
  std::unique_ptr<SandboxLaunch> launch(new SandboxLaunch());
  if (policy.max_processes > 0) {
    KEEL_ASSIGN_OR_RETURN(launch->cap_, ProcessCap::create(policy.max_processes, policy.cgroup_root));
  }
  KEEL_ASSIGN_OR_RETURN(launch->seccomp_fd_, seccomp_program_fd(policy.network));
  for (auto [r, w] : {std::pair{&launch->gate_read_, &launch->gate_write_},
                      std::pair{&launch->marker_read_, &launch->marker_write_}}) {
    if (const int err = make_pipe(*r, *w); err != 0) {
      return Status::Unavailable(std::string("cannot start the shell sandbox: cannot create a pipe: ") +
                                 std::strerror(err));
    }
  }
  ::fcntl(launch->marker_read_, F_SETFL, ::fcntl(launch->marker_read_, F_GETFL) | O_NONBLOCK);

  launch->argv_ = {"sh", "-c", kLauncherScript, "keel-sandbox", bwrap};
  launch->argv_.insert(launch->argv_.end(), args.begin(), args.end());
  for (std::string s : {"--", "/bin/sh", "-c", kInnerScript, "keel-shell"}) launch->argv_.push_back(std::move(s));
  launch->argv_.push_back(command);
  // Temporary files go to the sandbox's private /tmp, wherever TMPDIR pointed outside.
  for (std::string& e : env) {
    if (e.rfind("TMPDIR=", 0) == 0) e = "TMPDIR=/tmp";
  }
  launch->env_ = std::move(env);
  return launch;
}

SandboxLaunch::~SandboxLaunch() {
  for (int* fd : {&gate_read_, &gate_write_, &seccomp_fd_, &marker_read_, &marker_write_}) close_fd(*fd);
}

void SandboxLaunch::fill(SpawnRequest& spawn) const {
  spawn.program = "/bin/sh";
  spawn.argv = argv_;
  spawn.env = env_;
  spawn.inherited_fds = {{gate_read_, kGateFd}, {seccomp_fd_, kSeccompFd}, {marker_write_, kMarkerFd}};
}

Status SandboxLaunch::start(pid_t pid) {
  // The child has its copies; without ours, the marker pipe ends when the sandbox does.
  close_fd(gate_read_);
  close_fd(seccomp_fd_);
  close_fd(marker_write_);
  if (cap_) {
    if (Status s = cap_->attach(pid); !s.ok()) {
      close_fd(gate_write_);  // the launcher reads end of file and exits 125
      return s;
    }
  }
  static constexpr char kGo[] = "go\n";
  ssize_t n = -1;
  do {
    n = ::write(gate_write_, kGo, sizeof kGo - 1);
  } while (n < 0 && errno == EINTR);
  const int err = errno;
  close_fd(gate_write_);
  if (n != static_cast<ssize_t>(sizeof kGo - 1)) {
    return Status::Unavailable(std::string("cannot start the shell sandbox: ") + std::strerror(err));
  }
  return Status::Ok();
}

bool SandboxLaunch::command_started() {
  char c = 0;
  ssize_t n = -1;
  do {
    n = ::read(marker_read_, &c, 1);
  } while (n < 0 && errno == EINTR);
  return n == 1 && c == 'x';
}

Status SandboxLaunch::start_failure(const std::string& output) {
  std::string said = output;
  while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
  if (said.size() > 600) said = said.substr(0, 600) + "...";
  if (said.empty()) said = "it printed nothing";
  return Status::FailedPrecondition("the shell sandbox (bubblewrap) could not start, so the command did not run (" +
                                    said + "). " + kSandboxHowTo);
}

}  // namespace keel::detail
