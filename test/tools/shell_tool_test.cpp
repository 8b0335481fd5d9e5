#include <signal.h>
#include <sys/prctl.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "keel/builtin_tools.hpp"
#include "support/temp_dir.hpp"
#include "base/subprocess.hpp"

namespace keel {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

int64_t ms_since(Clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - start).count();
}

// True while any process of group `pgid` exists (zombies included).
bool group_exists(pid_t pgid) { return ::kill(-pgid, 0) == 0 || errno == EPERM; }

class ShellToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // In a container whose PID 1 does not reap orphans, the shell's own children would linger as
    // zombies after the group is killed and kill(-pgid, 0) would still succeed. As a subreaper this
    // process adopts them, and run_subprocess() reaps adopted group members.
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    options_.workspace_root = tmp_.path().string();
    options_.max_output_bytes = 64 * 1024;
    options_.shell_timeout_ms = 5000;
    ASSERT_TRUE(register_builtin_tools(registry_, options_).ok());
  }
  void TearDown() override { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }

  ToolContext context(std::stop_token stop) const {
    ToolContext ctx;
    ctx.stop = std::move(stop);
    ctx.workspace_root = tmp_.path().string();
    ctx.call_id = "c";
    return ctx;
  }

  Result<std::string> shell(const nlohmann::json& args, std::stop_token stop = {}) {
    Status valid = registry_.validate_arguments("shell", args);
    if (!valid.ok()) return valid;
    return registry_.find("shell")->execute(args, context(std::move(stop)));
  }

  testing::TempDir tmp_;
  BuiltinToolOptions options_;
  ToolRegistry registry_;
};

TEST_F(ShellToolTest, RunsACommandInTheWorkspace) {
  auto r = shell({{"command", "echo hi"}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, "hi\n[exit code 0]");
  auto pwd = shell({{"command", "pwd"}});
  ASSERT_TRUE(pwd.ok());
  EXPECT_EQ(*pwd, tmp_.path().string() + "\n[exit code 0]");
  auto stdin_empty = shell({{"command", "cat; echo done"}});
  ASSERT_TRUE(stdin_empty.ok());
  EXPECT_EQ(*stdin_empty, "done\n[exit code 0]");
}

TEST_F(ShellToolTest, CapturesStderrAndReportsExitCodes) {
  auto r = shell({{"command", "echo out; echo oops >&2; exit 3"}});
  ASSERT_TRUE(r.ok()) << r.status().message();  // a failing command is still an ok result
  EXPECT_NE(r->find("out\n"), std::string::npos) << *r;
  EXPECT_NE(r->find("oops\n"), std::string::npos) << *r;
  EXPECT_NE(r->find("[exit code 3]"), std::string::npos) << *r;
  auto silent = shell({{"command", "true"}});
  ASSERT_TRUE(silent.ok());
  EXPECT_EQ(*silent, "(no output)\n[exit code 0]");
  // In the sandbox the shell is a child of bwrap, which reports a signal as exit code 128+N.
  auto killed = shell({{"command", "kill -9 $$"}});
  ASSERT_TRUE(killed.ok()) << killed.status().message();
  EXPECT_NE(killed->find("[exit code 137]"), std::string::npos) << *killed;
  options_.shell_sandbox.mode = SandboxMode::kOff;  // unconfined, the signal itself is seen
  ToolRegistry unconfined;
  ASSERT_TRUE(register_builtin_tools(unconfined, options_).ok());
  auto signaled = unconfined.find("shell")->execute({{"command", "kill -9 $$"}}, context({}));
  ASSERT_TRUE(signaled.ok()) << signaled.status().message();
  EXPECT_NE(signaled->find("[killed by signal 9 (SIGKILL)]"), std::string::npos) << *signaled;
}

TEST_F(ShellToolTest, CapsHugeOutput) {
  const auto start = Clock::now();
  auto r = shell({{"command", "yes | head -c 10000000"}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_LT(r->size(), options_.max_output_bytes + 200);
  EXPECT_NE(r->find("[output truncated: 10000000 bytes total"), std::string::npos) << r->substr(r->size() - 200);
  EXPECT_NE(r->find("[exit code 0]"), std::string::npos);
  EXPECT_LT(ms_since(start), 2000);
}

TEST_F(ShellToolTest, TimeoutKillsTheProcessGroup) {
  // Unconfined: the test reads the shell's host pid, which the sandbox's pid namespace hides (the
  // sandboxed case is ShellSandboxTest.ATimedOutCommandLeavesNothingBehind).
  options_.shell_sandbox.mode = SandboxMode::kOff;
  ToolRegistry unconfined;
  ASSERT_TRUE(register_builtin_tools(unconfined, options_).ok());
  const auto start = Clock::now();
  // The shell prints its pid, which is also its process group id.
  auto r = unconfined.find("shell")->execute({{"command", "echo $$; sleep 30"}, {"timeout_ms", 300}}, context({}));
  const int64_t elapsed = ms_since(start);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kDeadlineExceeded);
  const std::string m = r.status().message();
  EXPECT_NE(m.find("timed out after 300 ms"), std::string::npos) << m;
  EXPECT_GE(elapsed, 290);
  EXPECT_LT(elapsed, 3000);
  const size_t at = m.find("output so far:\n");
  ASSERT_NE(at, std::string::npos) << m;
  const pid_t pgid = static_cast<pid_t>(std::stol(m.substr(at + 15)));
  ASSERT_GT(pgid, 1);
  EXPECT_EQ(::kill(-pgid, 0), -1) << "process group " << pgid << " still exists";
  EXPECT_EQ(errno, ESRCH);
}

TEST_F(ShellToolTest, TimeoutArgumentIsCappedByTheConfiguredLimit) {
  options_.shell_timeout_ms = 200;
  ToolRegistry registry;
  ASSERT_TRUE(register_builtin_tools(registry, options_).ok());
  EXPECT_EQ(registry.find("shell")->spec().timeout_ms, 200);
  const auto start = Clock::now();
  auto r = registry.find("shell")->execute({{"command", "sleep 30"}, {"timeout_ms", 100000}},
                                           context({}));
  EXPECT_EQ(r.status().code(), ErrorCode::kDeadlineExceeded);
  EXPECT_LT(ms_since(start), 1500);
}

TEST_F(ShellToolTest, StopTokenCancelsTheCommand) {
  std::stop_source stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(milliseconds(100));
    stop.request_stop();
  });
  const auto start = Clock::now();
  auto r = shell({{"command", "sleep 30"}}, stop.get_token());
  stopper.join();
  EXPECT_EQ(r.status().code(), ErrorCode::kCancelled);
  EXPECT_LT(ms_since(start), 1500);
}

TEST(SubprocessTest, TimedOutGroupIsGoneAfterward) {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  testing::TempDir tmp;
  detail::SubprocessRequest req;
  req.command = "sleep 30 & sleep 30; echo never";
  req.cwd = tmp.path().string();
  req.timeout = milliseconds(300);
  const auto start = Clock::now();
  auto r = detail::run_subprocess(req);
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_LT(ms_since(start), 3000);
  EXPECT_EQ(r->end, detail::SubprocessResult::End::kTimedOut);
  ASSERT_GT(r->pgid, 0);
  EXPECT_EQ(::kill(-r->pgid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

TEST(SubprocessTest, BackgroundJobsDoNotOutliveTheCommand) {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  testing::TempDir tmp;
  detail::SubprocessRequest req;
  req.command = "sleep 30 & echo started";
  req.cwd = tmp.path().string();
  req.timeout = milliseconds(5000);
  const auto start = Clock::now();
  auto r = detail::run_subprocess(req);
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  ASSERT_TRUE(r.ok());
  EXPECT_LT(ms_since(start), 1500);
  EXPECT_EQ(r->end, detail::SubprocessResult::End::kExited);
  EXPECT_EQ(r->output, "started\n");
  EXPECT_FALSE(group_exists(r->pgid));
}

TEST(SubprocessTest, BadWorkingDirectoryIsAnError) {
  detail::SubprocessRequest req;
  req.command = "true";
  req.cwd = "/nonexistent/keel-test-dir";
  auto r = detail::run_subprocess(req);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot start /bin/sh"), std::string::npos) << r.status().message();
}

TEST(SubprocessTest, InputGoesToStdinAndStderrCanBeKeptApart) {
  testing::TempDir tmp;
  detail::SubprocessRequest req;
  req.command = "wc -c; echo oops >&2";
  req.cwd = tmp.path().string();
  req.input = std::string(200 * 1024, 'x');  // more than a pipe holds at once
  req.separate_stderr = true;
  auto r = detail::run_subprocess(req);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->end, detail::SubprocessResult::End::kExited);
  EXPECT_EQ(r->output, "204800\n");
  EXPECT_EQ(r->error_output, "oops\n");
}

TEST(SubprocessTest, AChildThatDoesNotReadItsInputIsNoError) {
  testing::TempDir tmp;
  detail::SubprocessRequest req;
  req.command = "echo done; exit 3";
  req.cwd = tmp.path().string();
  req.input = std::string(1024 * 1024, 'x');
  const auto start = Clock::now();
  auto r = detail::run_subprocess(req);
  ASSERT_TRUE(r.ok()) << r.status().message();  // no SIGPIPE took this process down either
  EXPECT_LT(ms_since(start), 3000);
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->output, "done\n");
}

}  // namespace
}  // namespace keel
