// The shell tool inside the OS sandbox (base/sandbox.hpp): what a command can and cannot reach in
// each mode. bubblewrap must be installed: without it these tests fail, by design.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "support/temp_dir.hpp"
#include "tools/shell_sandbox_fixture.hpp"

namespace keel::testing {
namespace {

namespace fs = std::filesystem;

// Commands whose output is checked in order send stderr to stdout ("exec 2>&1"): the tool reads the
// two pipes separately and merges them in arrival order.

TEST_F(ShellSandboxTest, WorkspaceWriteAllowsWritesInTheWorkspaceOnly) {
  VarTmpDir outside;  // neither in the workspace nor in /tmp: read-only in the sandbox
  TempDir other_tmp;  // in the host's /tmp: the sandbox has its own
  const fs::path outside_file = outside.path() / "escaped.txt";
  const fs::path tmp_file = other_tmp.path() / "escaped.txt";
  auto r =
      shell("exec 2>&1; echo inside > made.txt && cat made.txt; echo x > '" + outside_file.string() + "'; echo x > '" +
            tmp_file.string() + "'; echo x > /etc/keel-sandbox-escape; echo x > /tmp/private && cat /tmp/private");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(has_text(*r, "inside\n")) << *r;
  EXPECT_EQ(read_file(workspace_.path() / "made.txt"), "inside\n");
  EXPECT_TRUE(has_text(*r, "Read-only file system")) << *r;
  EXPECT_FALSE(fs::exists(outside_file));
  EXPECT_FALSE(fs::exists(tmp_file));
  EXPECT_FALSE(fs::exists("/etc/keel-sandbox-escape"));
  EXPECT_TRUE(has_text(*r, "x\n[exit code 0]")) << *r;  // the private /tmp is writable
}

TEST_F(ShellSandboxTest, HomeSecretsAndTheDatabaseAreHidden) {
  const std::string key = (home_.path() / ".ssh/id_ed25519").string();
  const std::string db = (keel_home_.path() / "keel.db").string();
  auto r = shell("cat '" + key + "'; cat '" + db + "'; ls -A \"$HOME\"; echo \"home=$HOME\"");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(has_text(*r, kSshSecret)) << *r;
  EXPECT_FALSE(has_text(*r, kDbSecret)) << *r;
  EXPECT_TRUE(has_text(*r, "No such file or directory")) << *r;
  EXPECT_TRUE(has_text(*r, "home=" + home_.path().string())) << *r;

  options_.shell_sandbox.mode = SandboxMode::kOff;  // the same command unconfined reads both
  auto open = shell("cat '" + key + "'; cat '" + db + "'");
  ASSERT_TRUE(open.ok()) << open.status().message();
  EXPECT_TRUE(has_text(*open, kSshSecret)) << *open;
  EXPECT_TRUE(has_text(*open, kDbSecret)) << *open;
}

TEST_F(ShellSandboxTest, AHomeReachedThroughASymlinkIsHiddenWhereItLeads) {
  VarTmpDir links;
  const fs::path link = links.path() / "home-link";
  fs::create_directory_symlink(home_.path(), link);
  env_.set("HOME", link.string());
  auto r = shell("cat \"$HOME/.ssh/id_ed25519\"; cat '" + (home_.path() / ".ssh/id_ed25519").string() + "'");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(has_text(*r, kSshSecret)) << *r;
  EXPECT_TRUE(has_text(*r, "No such file or directory")) << *r;
}

TEST_F(ShellSandboxTest, AWorkspaceInsideHomeWorksAndHomeStaysHidden) {
  fs::create_directories(home_.path() / "project");
  options_.workspace_root = (home_.path() / "project").string();
  auto r = shell("echo ok > f.txt && cat f.txt; cat \"$HOME/.ssh/id_ed25519\"");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(has_text(*r, "ok\n")) << *r;
  EXPECT_EQ(read_file(home_.path() / "project/f.txt"), "ok\n");
  EXPECT_FALSE(has_text(*r, kSshSecret)) << *r;
}

TEST_F(ShellSandboxTest, KeelHomeInsideTheWorkspaceStaysHidden) {
  fs::create_directories(workspace_.path() / "state");
  write(workspace_.path() / "state/keel.db", kDbSecret);
  env_.set("KEEL_HOME", (workspace_.path() / "state").string());
  auto r = shell("cat state/keel.db; echo ok > f.txt && cat f.txt");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(has_text(*r, kDbSecret)) << *r;
  EXPECT_TRUE(has_text(*r, "ok\n")) << *r;
  EXPECT_EQ(read_file(workspace_.path() / "state/keel.db"), kDbSecret);  // untouched on the host
}

TEST_F(ShellSandboxTest, AWorkspaceThatIsKeelHomeOrHomeIsRefused) {
  for (const fs::path& dir : {keel_home_.path(), home_.path()}) {
    options_.workspace_root = dir.string();
    auto r = shell("touch ran-anyway");
    ASSERT_FALSE(r.ok()) << dir;
    EXPECT_EQ(r.status().code(), ErrorCode::kFailedPrecondition);
    EXPECT_TRUE(has_text(r.status().message(), "sandbox hides from commands")) << r.status().message();
    EXPECT_TRUE(has_text(r.status().message(), "--sandbox off")) << r.status().message();
    EXPECT_FALSE(fs::exists(dir / "ran-anyway"));
  }
}

TEST_F(ShellSandboxTest, ReadOnlyRefusesWritesInTheWorkspace) {
  write(workspace_.path() / "kept.txt", "original");
  options_.shell_sandbox.mode = SandboxMode::kReadOnly;
  auto r = shell(
      "exec 2>&1; cat kept.txt; echo; echo changed > kept.txt; echo new > new.txt; echo t > /tmp/t && cat /tmp/t");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(has_text(*r, "original\n")) << *r;
  EXPECT_TRUE(has_text(*r, "Read-only file system")) << *r;
  EXPECT_EQ(read_file(workspace_.path() / "kept.txt"), "original");
  EXPECT_FALSE(fs::exists(workspace_.path() / "new.txt"));
  EXPECT_TRUE(has_text(*r, "t\n[exit code 0]")) << *r;
}

TEST_F(ShellSandboxTest, TheWorkspaceConfigCannotBeRewritten) {
  write(workspace_.path() / "keel.yaml", "max_rounds: 5\n");
  auto r = shell("echo 'tools: {shell: {sandbox: off}}' > keel.yaml; echo other > other.txt");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(read_file(workspace_.path() / "keel.yaml"), "max_rounds: 5\n");
  EXPECT_EQ(read_file(workspace_.path() / "other.txt"), "other\n");
}

// A TCP listener on 127.0.0.1 in this process's network namespace.
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) == 0 && ::listen(fd_, 8) == 0 &&
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      port_ = ntohs(addr.sin_port);
    }
  }
  ~Listener() { ::close(fd_); }
  int port() const { return port_; }
  // True when a connection is waiting to be accepted.
  bool was_connected() const {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, 200) == 1;
  }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST_F(ShellSandboxTest, NetworkIsOffByDefaultAndOnWhenAsked) {
  const std::string connect = "bash -c 'exec 3<>/dev/tcp/127.0.0.1/PORT && echo connected'";
  {
    Listener listener;
    ASSERT_GT(listener.port(), 0);
    std::string command = connect;
    command.replace(command.find("PORT"), 4, std::to_string(listener.port()));
    auto r = shell(command);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_FALSE(has_text(*r, "connected\n")) << *r;
    EXPECT_TRUE(has_text(*r, "Operation not permitted")) << *r;  // the seccomp filter refuses AF_INET sockets
    EXPECT_FALSE(listener.was_connected());
  }
  {
    options_.shell_sandbox.network = true;
    Listener listener;
    ASSERT_GT(listener.port(), 0);
    std::string command = connect;
    command.replace(command.find("PORT"), 4, std::to_string(listener.port()));
    auto r = shell(command);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_TRUE(has_text(*r, "connected\n[exit code 0]")) << *r;
    EXPECT_TRUE(listener.was_connected());
  }
}

TEST_F(ShellSandboxTest, OtherProcessesAndTheirEnvironmentsAreOutOfSight) {
  env_.set("OPENAI_API_KEY", "sk-keel-sandbox-test");
  const std::string mine = "/proc/" + std::to_string(::getpid()) + "/environ";
  auto r = shell("cat " + mine + "; echo \"rc=$?\"; tr '\\0' '\\n' < /proc/1/environ; ls -d /proc/[0-9]* | wc -l");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(has_text(*r, "rc=1")) << *r;
  EXPECT_FALSE(has_text(*r, "sk-keel-sandbox-test")) << *r;
  EXPECT_TRUE(has_text(*r, "PATH=")) << *r;  // bwrap's own pid 1 is readable, and holds only the clean environment

  options_.shell_sandbox.mode = SandboxMode::kOff;  // unconfined, this process's environ is readable
  auto open = shell("cat " + mine + " >/dev/null; echo \"rc=$?\"");
  ASSERT_TRUE(open.ok()) << open.status().message();
  EXPECT_TRUE(has_text(*open, "rc=0")) << *open;
}

TEST_F(ShellSandboxTest, EnvironmentIsCleanInEveryModeButNamedVariablesPass) {
  env_.set("OPENAI_API_KEY", "sk-openai-test");
  env_.set("ANTHROPIC_API_KEY", "sk-ant-test");
  env_.set("HF_TOKEN", "hf-test");
  env_.set("KEEL_SERVE_TOKEN", "serve-test");
  env_.set("KEEL_SANDBOX_TEST_PASSED", "passed-value");
  options_.shell_env = {"KEEL_SANDBOX_TEST_PASSED"};
  for (SandboxMode mode : {SandboxMode::kWorkspaceWrite, SandboxMode::kReadOnly, SandboxMode::kOff}) {
    options_.shell_sandbox.mode = mode;
    auto r = shell("env");
    ASSERT_TRUE(r.ok()) << r.status().message();
    for (const char* secret : {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN", "KEEL_SERVE_TOKEN"}) {
      EXPECT_FALSE(has_text(*r, secret)) << sandbox_mode_name(mode) << ": " << *r;
    }
    EXPECT_TRUE(has_text(*r, "KEEL_SANDBOX_TEST_PASSED=passed-value")) << sandbox_mode_name(mode) << ": " << *r;
    EXPECT_TRUE(has_text(*r, "PATH=")) << *r;
  }
}

TEST_F(ShellSandboxTest, SeccompFilterIsInPlace) {
  auto r = shell(
      "exec 2>&1; grep '^Seccomp:' /proc/self/status; unshare --user true && echo unshared; "
      "cat /proc/self/status | grep -c '^CapEff:\\s*0*$'");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(has_text(*r, "Seccomp:\t2")) << *r;
  EXPECT_FALSE(has_text(*r, "unshared")) << *r;
  EXPECT_TRUE(has_text(*r, "1\n[exit code 0]")) << *r;  // no capabilities left, even for root
}

}  // namespace
}  // namespace keel::testing
