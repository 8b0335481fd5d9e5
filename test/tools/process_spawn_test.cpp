#include "base/process_spawn.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

namespace keel::detail {
namespace {

// Everything readable from `fd` until end of file (it is non-blocking), then closes it.
std::string read_to_end(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) break;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      break;
    }
  }
  ::close(fd);
  return out;
}

int reap_child(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

SpawnRequest shell_request(const std::string& script) {
  SpawnRequest r;
  r.program = "/bin/sh";
  r.argv = {"sh", "-c", script};
  r.env = {"PATH=/usr/bin:/bin"};
  return r;
}

TEST(ProcessSpawnTest, PipesCarryAllThreeStreams) {
  SpawnRequest r = shell_request("read line; echo \"out:$line\"; echo err >&2");
  r.stdin_stream = ChildStream::kPipe;
  auto child = spawn_process(r);
  ASSERT_TRUE(child.ok()) << child.status().message();
  ASSERT_GE(child->stdin_fd, 0);
  EXPECT_NE(::fcntl(child->stdin_fd, F_GETFL) & O_NONBLOCK, 0);
  EXPECT_NE(::fcntl(child->stdout_fd, F_GETFD) & FD_CLOEXEC, 0);
  ASSERT_EQ(::write(child->stdin_fd, "hi\n", 3), 3);
  ::close(child->stdin_fd);
  EXPECT_EQ(read_to_end(child->stdout_fd), "out:hi\n");
  EXPECT_EQ(read_to_end(child->stderr_fd), "err\n");
  const int status = reap_child(child->pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(ProcessSpawnTest, NullStreamsAndNoPipeBack) {
  SpawnRequest r = shell_request("cat; echo done");
  r.stderr_stream = ChildStream::kNull;
  auto child = spawn_process(r);
  ASSERT_TRUE(child.ok()) << child.status().message();
  EXPECT_EQ(child->stdin_fd, -1);
  EXPECT_EQ(child->stderr_fd, -1);
  EXPECT_EQ(read_to_end(child->stdout_fd), "done\n");  // cat read /dev/null: at once empty
  reap_child(child->pid);
}

TEST(ProcessSpawnTest, EnvironmentIsExactlyTheGivenList) {
  SpawnRequest r = shell_request("env | sort");
  r.env = {"B=2", "A=1"};
  auto child = spawn_process(r);
  ASSERT_TRUE(child.ok()) << child.status().message();
  const std::string out = read_to_end(child->stdout_fd);
  ::close(child->stderr_fd);
  reap_child(child->pid);
  EXPECT_NE(out.find("A=1\nB=2\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("HOME="), std::string::npos) << out;
}

TEST(ProcessSpawnTest, WorkingDirectoryAndProcessGroup) {
  SpawnRequest r = shell_request("pwd");
  r.cwd = "/";
  auto child = spawn_process(r);
  ASSERT_TRUE(child.ok()) << child.status().message();
  EXPECT_EQ(::getpgid(child->pid), child->pid);  // not reaped yet, so still there
  EXPECT_EQ(read_to_end(child->stdout_fd), "/\n");
  ::close(child->stderr_fd);
  reap_child(child->pid);

  r.new_process_group = false;
  auto same_group = spawn_process(r);
  ASSERT_TRUE(same_group.ok()) << same_group.status().message();
  EXPECT_EQ(::getpgid(same_group->pid), ::getpgrp());
  read_to_end(same_group->stdout_fd);
  ::close(same_group->stderr_fd);
  reap_child(same_group->pid);
}

TEST(ProcessSpawnTest, IgnoredSignalsAreResetToDefault) {
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGUSR2, &ignore, &old), 0);
  auto child = spawn_process(shell_request("kill -USR2 $$; echo survived"));
  ::sigaction(SIGUSR2, &old, nullptr);
  ASSERT_TRUE(child.ok()) << child.status().message();
  EXPECT_EQ(read_to_end(child->stdout_fd), "");
  ::close(child->stderr_fd);
  const int status = reap_child(child->pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGUSR2);
}

TEST(ProcessSpawnTest, OnlyListedSignalsAreResetWhenAListIsGiven) {
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGUSR2, &ignore, &old), 0);
  SpawnRequest r = shell_request("kill -USR2 $$; echo survived");
  r.default_signals = {SIGUSR1};
  auto child = spawn_process(r);
  ::sigaction(SIGUSR2, &old, nullptr);
  ASSERT_TRUE(child.ok()) << child.status().message();
  EXPECT_EQ(read_to_end(child->stdout_fd), "survived\n");
  ::close(child->stderr_fd);
  reap_child(child->pid);
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
TEST(ProcessSpawnTest, DescriptorsWithoutCloseOnExecAreNotInherited) {
  int leak[2];
  ASSERT_EQ(::pipe(leak), 0);  // no O_CLOEXEC
  auto child = spawn_process(shell_request("if [ -e /dev/fd/" + std::to_string(leak[1]) + " ]; then echo open; else echo closed; fi"));
  ::close(leak[0]);
  ::close(leak[1]);
  ASSERT_TRUE(child.ok()) << child.status().message();
  EXPECT_EQ(read_to_end(child->stdout_fd), "closed\n");
  ::close(child->stderr_fd);
  reap_child(child->pid);
}
#endif

TEST(ProcessSpawnTest, FailuresGoThroughTheCallersWords) {
  SpawnRequest r = shell_request("true");
  r.program = "/nonexistent/keel-no-such-program";
  auto generic = spawn_process(r);
  ASSERT_FALSE(generic.ok());
  EXPECT_NE(generic.status().message().find("cannot start '/nonexistent/keel-no-such-program'"), std::string::npos)
      << generic.status().message();

  SpawnFailure seen;
  r.describe_failure = [&seen](const SpawnFailure& f) {
    seen = f;
    return Status::NotFound("mine");
  };
  auto own = spawn_process(r);
  ASSERT_FALSE(own.ok());
  EXPECT_EQ(own.status().message(), "mine");
  EXPECT_EQ(seen.step, SpawnFailure::Step::kSpawn);
  EXPECT_EQ(seen.error, ENOENT);

  r.program = "/bin/sh";
  r.cwd = "/nonexistent/keel-test-dir";
  auto bad_cwd = spawn_process(r);
  ASSERT_FALSE(bad_cwd.ok());
  EXPECT_EQ(seen.error, ENOENT);
}

TEST(ProcessSpawnTest, InheritedDescriptorsArriveAtTheirNumbersAndNoOthers) {
  int a[2], b[2];
  ASSERT_EQ(::pipe2(a, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(b, O_CLOEXEC), 0);
  const int stray = ::open("/dev/null", O_RDONLY);  // no O_CLOEXEC: must not reach the child
  ASSERT_GE(stray, 0);
  // Targets that may collide with the sources' own numbers: a's write end goes to 4, b's to 3.
  SpawnRequest r = shell_request("printf A >&4; printf B >&3; ls /proc/self/fd | sort -n | tr '\\n' ' '");
  r.inherited_fds = {{a[1], 4}, {b[1], 3}};
  auto child = spawn_process(r);
  ASSERT_TRUE(child.ok()) << child.status().message();
  ::close(a[1]);
  ::close(b[1]);
  ::close(stray);
  const std::string fds = read_to_end(child->stdout_fd);
  read_to_end(child->stderr_fd);
  EXPECT_EQ(reap_child(child->pid), 0);
  char buf[8] = {};
  EXPECT_EQ(::read(a[0], buf, sizeof buf), 1);
  EXPECT_EQ(buf[0], 'A');
  EXPECT_EQ(::read(b[0], buf, sizeof buf), 1);
  EXPECT_EQ(buf[0], 'B');
  ::close(a[0]);
  ::close(b[0]);
  // 0-2, the two inherited ones, and the descriptor ls opens to read /proc/self/fd.
  EXPECT_EQ(fds.rfind("0 1 2 3 4 ", 0), 0u) << fds;
  EXPECT_LE(fds.size(), std::string("0 1 2 3 4 5 ").size()) << fds;

  SpawnRequest low = shell_request("true");
  low.inherited_fds = {{0, 2}};
  EXPECT_EQ(spawn_process(low).status().code(), ErrorCode::kInvalidArgument);
  SpawnRequest twice = shell_request("true");
  twice.inherited_fds = {{0, 3}, {0, 3}};
  EXPECT_EQ(spawn_process(twice).status().code(), ErrorCode::kInvalidArgument);
}

TEST(ProcessSpawnTest, FindProgramSearchesThePath) {
  EXPECT_EQ(find_program("sh", "/nonexistent:/bin", ""), std::optional<std::string>("/bin/sh"));
  EXPECT_EQ(find_program("keel-no-such-program", "/bin:/usr/bin", ""), std::nullopt);
  EXPECT_EQ(find_program("/bin/sh", "", ""), std::optional<std::string>("/bin/sh"));
  EXPECT_EQ(find_program("bin/sh", "", "/"), std::optional<std::string>("bin/sh"));  // relative to cwd
  EXPECT_EQ(find_program("bin/sh", "", "/nonexistent"), std::nullopt);
  EXPECT_EQ(find_program("sh", "bin", "/"), std::optional<std::string>("bin/sh"));
}

TEST(ProcessSpawnTest, DescribeWaitStatus) {
  EXPECT_EQ(describe_wait_status(-1), "exited (its exit status is unknown: it was reaped elsewhere)");
  auto child = spawn_process(shell_request("exit 3"));
  ASSERT_TRUE(child.ok());
  ::close(child->stdout_fd);
  ::close(child->stderr_fd);
  EXPECT_EQ(describe_wait_status(reap_child(child->pid)), "exited with code 3");
  auto killed = spawn_process(shell_request("kill -KILL $$"));
  ASSERT_TRUE(killed.ok());
  ::close(killed->stdout_fd);
  ::close(killed->stderr_fd);
  EXPECT_EQ(describe_wait_status(reap_child(killed->pid)).rfind("was killed by signal 9", 0), 0u);
}

}  // namespace
}  // namespace keel::detail
