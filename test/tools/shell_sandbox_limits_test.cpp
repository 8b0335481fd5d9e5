// The shell sandbox's limits and failure modes: the process cap, a command that runs too long, and
// failing closed when bubblewrap is missing, cannot start or no process cap is available.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "support/temp_dir.hpp"
#include "tools/shell_sandbox_fixture.hpp"

namespace keel::testing {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

int64_t sandbox_ms_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

// Host processes whose command line contains `needle` (zombies have none and do not count).
int host_processes_with(const std::string& needle) {
  int count = 0;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return -1;
  while (const dirent* e = ::readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (char& c : cmdline) {
      if (c == '\0') c = ' ';
    }
    if (has_text(cmdline, needle)) ++count;
  }
  ::closedir(proc);
  return count;
}

// The cgroups under /sys/fs/cgroup/pids named like the sandbox's (keel-shell-<pid>-<n>) of this
// process. Compared before and after a call, so one left by an earlier process of the same pid
// does not count.
std::set<std::string> shell_cgroups() {
  std::set<std::string> names;
  const std::string prefix = "keel-shell-" + std::to_string(::getpid()) + "-";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/sys/fs/cgroup/pids", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0) names.insert(name);
  }
  return names;
}

// Cgroups there now that were not in `before`: the ones a call left behind.
int leftover_cgroups(const std::set<std::string>& before) {
  int count = 0;
  for (const std::string& name : shell_cgroups()) count += before.count(name) == 0 ? 1 : 0;
  return count;
}

TEST_F(ShellSandboxTest, ProcessesAreCappedAndGoneAfterTheCall) {
  options_.shell_sandbox.max_processes = 24;
  const std::set<std::string> cgroups_before = shell_cgroups();
  const auto start = Clock::now();
  // A subshell starts up to 80 background sleeps and exits at the first fork that fails (its
  // error is kept: it shows the loop was stopped by a refused fork); then the sandbox's processes
  // are counted with shell builtins only, which need no fork.
  auto r = shell(
      "( i=0; while [ $i -lt 80 ]; do sleep 61.25 & i=$((i+1)); done; echo all-started ) & wait $!; "
      "n=0; for p in /proc/[0-9]*; do n=$((n+1)); done; echo \"count=$n\"");
  const int64_t elapsed_ms = sandbox_ms_since(start);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const size_t at = r->find("count=");
  ASSERT_NE(at, std::string::npos) << *r;
  const int count = std::stoi(r->substr(at + 6));
  // All in one message, so a failure elsewhere shows the whole picture.
  const std::string seen = "output: " + *r + "\nelapsed: " + std::to_string(elapsed_ms) + " ms";
  EXPECT_LE(count, 24) << seen;
  EXPECT_FALSE(has_text(*r, "all-started")) << seen;  // a fork was refused before the 80th sleep
  EXPECT_TRUE(has_text(*r, "fork")) << seen;          // dash: "Cannot fork"
  EXPECT_GE(count, 3) << seen;                        // and sleeps were running to be cleaned up
  EXPECT_LT(elapsed_ms, 30000) << seen;               // not the sleeps' 61 s
  EXPECT_EQ(host_processes_with("sleep 61.25"), 0) << seen;
  EXPECT_EQ(leftover_cgroups(cgroups_before), 0) << seen;
}

TEST_F(ShellSandboxTest, AForkBombEndsWithTheCall) {
  options_.shell_sandbox.max_processes = 32;
  const std::set<std::string> cgroups_before = shell_cgroups();
  const auto start = Clock::now();
  auto r = shell("bomb() { bomb | bomb & }; bomb; sleep 1; echo survived", 5000);
  // Whether it ends by itself or by the timeout, the call returns and nothing is left behind. When
  // it ends by itself the cap stopped the bomb: either the script went on ("survived"), or the cap
  // was still full when the script's own `sleep` needed a process ("Cannot fork").
  if (r.ok()) {
    EXPECT_TRUE(has_text(*r, "survived") || has_text(*r, "Cannot fork")) << *r;
  } else {
    EXPECT_EQ(r.status().code(), ErrorCode::kDeadlineExceeded) << r.status().message();
  }
  EXPECT_LT(sandbox_ms_since(start), 15000);
  EXPECT_EQ(leftover_cgroups(cgroups_before), 0);
}

TEST_F(ShellSandboxTest, ATimedOutCommandLeavesNothingBehind) {
  const std::set<std::string> cgroups_before = shell_cgroups();
  const auto start = Clock::now();
  auto r = shell("sleep 62.5 & sleep 62.5", 300);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kDeadlineExceeded);
  EXPECT_LT(sandbox_ms_since(start), 5000);
  EXPECT_EQ(host_processes_with("sleep 62.5"), 0);
  EXPECT_EQ(leftover_cgroups(cgroups_before), 0);
}

TEST_F(ShellSandboxTest, MissingBwrapFailsClosed) {
  options_.shell_sandbox.bwrap_path = "/nonexistent/keel-test/bwrap";
  auto r = shell("touch ran-anyway");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kFailedPrecondition);
  const std::string m = r.status().message();
  EXPECT_TRUE(has_text(m, "/nonexistent/keel-test/bwrap")) << m;
  EXPECT_TRUE(has_text(m, "the command did not run")) << m;
  EXPECT_TRUE(has_text(m, "install bubblewrap")) << m;
  EXPECT_TRUE(has_text(m, "user namespaces")) << m;
  EXPECT_TRUE(has_text(m, "tools.shell.sandbox: off")) << m;
  EXPECT_TRUE(has_text(m, "--sandbox off")) << m;
  EXPECT_FALSE(fs::exists(workspace_.path() / "ran-anyway"));
}

TEST_F(ShellSandboxTest, ABwrapThatCannotStartFailsClosed) {
  // What bwrap does without unprivileged user namespaces: a message and exit 1, before the command.
  VarTmpDir bin;
  const fs::path fake = bin.path() / "bwrap";
  write(fake, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
  ASSERT_EQ(::chmod(fake.c_str(), 0755), 0);
  options_.shell_sandbox.bwrap_path = fake.string();
  auto r = shell("touch ran-anyway");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kFailedPrecondition);
  const std::string m = r.status().message();
  EXPECT_TRUE(has_text(m, "bwrap: No permissions to create new namespace")) << m;
  EXPECT_TRUE(has_text(m, "the command did not run")) << m;
  EXPECT_TRUE(has_text(m, "--sandbox off")) << m;
  EXPECT_FALSE(fs::exists(workspace_.path() / "ran-anyway"));

  // A command that itself prints like bwrap and exits 1 is just a command that failed.
  options_.shell_sandbox.bwrap_path.clear();
  auto own = shell("echo 'bwrap: made up' >&2; exit 1");
  ASSERT_TRUE(own.ok()) << own.status().message();
  EXPECT_EQ(*own, "bwrap: made up\n[exit code 1]");
}

TEST_F(ShellSandboxTest, NoProcessCapFailsClosedForRootUnlessTheCapIsOff) {
  options_.shell_sandbox.cgroup_root = "/nonexistent/keel-test/cgroup";
  auto r = shell("touch ran");
  if (::geteuid() == 0) {  // RLIMIT_NPROC does not bind root: no mechanism is left
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kFailedPrecondition);
    EXPECT_TRUE(has_text(r.status().message(), "tools.shell.max_processes: 0")) << r.status().message();
    EXPECT_FALSE(fs::exists(workspace_.path() / "ran"));
  } else {  // RLIMIT_NPROC caps a normal user
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_TRUE(fs::exists(workspace_.path() / "ran"));
  }
  options_.shell_sandbox.max_processes = 0;  // the operator's explicit choice: no cap
  auto uncapped = shell("touch uncapped");
  ASSERT_TRUE(uncapped.ok()) << uncapped.status().message();
  EXPECT_TRUE(fs::exists(workspace_.path() / "uncapped"));
}

}  // namespace
}  // namespace keel::testing
