// The cap on a sandboxed command's processes; see process_cap.hpp.
#include "base/process_cap.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace keel::detail {
namespace {

using std::chrono::milliseconds;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes `text` to a cgroup control file; errno on failure, else 0.
int write_control(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const ssize_t n = ::write(fd, text.data(), text.size());
  const int err = n == static_cast<ssize_t>(text.size()) ? 0 : (n < 0 ? errno : EIO);
  ::close(fd);
  return err;
}

bool has_word(const std::string& text, const std::string& word) {
  std::istringstream in(text);
  std::string w;
  while (in >> w) {
    if (w == word) return true;
  }
  return false;
}

// This process's cgroup path for a hierarchy: the v2 one ("0::/path") when `controller` is empty,
// else the v1 hierarchy whose controller list holds it ("4:pids:/path"). Empty when not found.
std::string own_cgroup(const std::string& controller) {
  std::istringstream in(read_text("/proc/self/cgroup"));
  std::string line;
  while (std::getline(in, line)) {
    const size_t a = line.find(':');
    const size_t b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    const std::string path = line.substr(b + 1);
    if (controller.empty() ? controllers.empty() && line.substr(0, a) == "0"
                           : ("," + controllers + ",").find("," + controller + ",") != std::string::npos) {
      return path;
    }
  }
  return {};
}

std::string unique_name() {
  static std::atomic<unsigned> counter{0};
  return "keel-shell-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
}

// Makes <parent>/<unique name> with pids.max = cap; the new folder, or empty.
std::string make_pids_cgroup(const std::string& parent, int cap) {
  const std::string dir = parent + "/" + unique_name();
  if (::mkdir(dir.c_str(), 0755) != 0) return {};
  if (write_control(dir + "/pids.max", std::to_string(cap)) != 0) {
    ::rmdir(dir.c_str());
    return {};
  }
  return dir;
}

// A v2 cgroup under `parent` when it delegates pids to its children (or can be made to).
std::string try_v2(const std::string& parent, int cap) {
  if (!has_word(read_text(parent + "/cgroup.subtree_control"), "pids") &&
      (write_control(parent + "/cgroup.subtree_control", "+pids") != 0 ||
       !has_word(read_text(parent + "/cgroup.subtree_control"), "pids"))) {
    return {};
  }
  return make_pids_cgroup(parent, cap);
}

// Tasks (threads) the real user of this process has now, from /proc.
unsigned long user_task_count() {
  unsigned long total = 0;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return 0;
  const std::string uid = std::to_string(::getuid());
  while (const dirent* e = ::readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::istringstream in(read_text(std::string("/proc/") + e->d_name + "/status"));
    std::string line;
    bool mine = false;
    while (std::getline(in, line)) {
      if (line.rfind("Uid:", 0) == 0) {
        std::istringstream fields(line.substr(4));
        std::string real;
        fields >> real;
        mine = real == uid;
      } else if (mine && line.rfind("Threads:", 0) == 0) {
        total += std::strtoul(line.c_str() + 8, nullptr, 10);
        break;
      }
    }
  }
  ::closedir(proc);
  return total;
}

}  // namespace

Result<std::unique_ptr<ProcessCap>> ProcessCap::create(int max_processes, const std::string& cgroup_root) {
  if (max_processes < 1) return Status::InvalidArgument("the process cap must be at least 1");
  const std::string root = cgroup_root.empty() ? "/sys/fs/cgroup" : cgroup_root;
  std::unique_ptr<ProcessCap> cap(new ProcessCap());

  if (has_word(read_text(root + "/cgroup.controllers"), "pids")) {
    std::vector<std::string> parents;
    const std::string own = own_cgroup("");
    if (!own.empty()) parents.push_back(own == "/" ? root : root + own);
    if (::geteuid() == 0 && (parents.empty() || parents.back() != root)) parents.push_back(root);
    for (const std::string& parent : parents) {
      if (std::string dir = try_v2(parent, max_processes); !dir.empty()) {
        cap->cgroup_dir_ = dir;
        cap->cgroup_v2_ = true;
        cap->mechanism_ = "cgroup v2 " + dir;
        return cap;
      }
    }
  }
  struct stat st {};
  if (::stat((root + "/pids/cgroup.procs").c_str(), &st) == 0) {
    const std::string own = own_cgroup("pids");
    const std::string parent = own.empty() || own == "/" ? root + "/pids" : root + "/pids" + own;
    if (std::string dir = make_pids_cgroup(parent, max_processes); !dir.empty()) {
      cap->cgroup_dir_ = dir;
      cap->mechanism_ = "cgroup v1 " + dir;
      return cap;
    }
  }
  if (::geteuid() != 0) {
    cap->rlimit_ = user_task_count() + static_cast<unsigned long>(max_processes);
    cap->mechanism_ = "RLIMIT_NPROC";
    return cap;
  }
  return Status::FailedPrecondition(
      "cannot cap the shell command at " + std::to_string(max_processes) +
      " processes: keel runs as root, which RLIMIT_NPROC does not limit, and it found no pids cgroup it may use "
      "(looked for cgroup v2 at " +
      root + " and v1 at " + root +
      "/pids); the command did not run. Give keel a "
      "writable pids cgroup (a systemd unit with Delegate=pids, or /sys/fs/cgroup mounted read-write in its "
      "container), run keel as a normal user, or set tools.shell.max_processes: 0 in your user config to run "
      "commands without a cap");
}

Status ProcessCap::attach(pid_t pid) {
  if (!cgroup_dir_.empty()) {
    if (const int err = write_control(cgroup_dir_ + "/cgroup.procs", std::to_string(pid)); err != 0) {
      return Status::Unavailable("cannot put the shell command into its pids cgroup " + cgroup_dir_ + ": " +
                                 std::strerror(err));
    }
    return Status::Ok();
  }
  const rlimit limit{rlimit_, rlimit_};
  if (::prlimit(pid, RLIMIT_NPROC, &limit, nullptr) != 0) {
    return Status::Unavailable(std::string("cannot set RLIMIT_NPROC on the shell command: ") + std::strerror(errno));
  }
  return Status::Ok();
}

ProcessCap::~ProcessCap() {
  if (cgroup_dir_.empty()) return;
  if (cgroup_v2_) write_control(cgroup_dir_ + "/cgroup.kill", "1");  // Linux 5.14+; the loop below otherwise
  const auto until = std::chrono::steady_clock::now() + milliseconds(2000);
  while (std::chrono::steady_clock::now() < until) {
    if (::rmdir(cgroup_dir_.c_str()) == 0 || errno == ENOENT) return;
    std::istringstream procs(read_text(cgroup_dir_ + "/cgroup.procs"));
    pid_t pid = 0;
    while (procs >> pid) ::kill(pid, SIGKILL);
    std::this_thread::sleep_for(milliseconds(1));
  }
}

}  // namespace keel::detail
