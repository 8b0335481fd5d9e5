// Crash safety end to end: `keel run` is killed with SIGKILL while waiting for the model; `keel
// resume` finishes the run, and the session holds every message committed before the kill once.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <thread>

#include "keel/store/sqlite_store.hpp"
#include "support/cli_runner.hpp"
#include "support/mock_llm_server.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;

// Starts keel in the background with a clean environment; returns its pid.
pid_t spawn_keel(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  int null_fd = open("/dev/null", O_RDWR);
  dup2(null_fd, 0);
  dup2(null_fd, 1);
  dup2(null_fd, 2);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(KEEL_BINARY));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  execve(KEEL_BINARY, argv.data(), envp.data());
  _exit(127);
}

bool wait_for(const std::function<bool()>& ready, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return ready();
}

TEST(CrashResumeE2e, KillNineMidRoundThenResumeCompletesTheRun) {
  testing::MockLlmServer server;
  testing::TempDir ws;
  testing::TempDir home;
  ws.write("notes.txt", "the launch code is 4242\n");
  server.push(testing::mock_tool_calls({{"call_1", "fs_read", R"({"path":"notes.txt"})"}}));
  server.push(testing::with_delay(testing::mock_text("never delivered"), 30000));

  std::string keel_home = (home.path() / "keel").string();
  std::vector<std::string> env = {"PATH=/usr/bin:/bin", "HOME=" + home.path().string(), "KEEL_HOME=" + keel_home};
  pid_t pid = spawn_keel({"run", "--base-url", server.base_url(), "--model", "mock", "--no-stream", "--workspace",
                          ws.path().string(), "what is the launch code?"},
                         env);
  ASSERT_GT(pid, 0);
  // The second model call is in flight; the round before it (the call and its result) is written
  // while it waits for the reply.
  ASSERT_TRUE(wait_for([&] { return server.request_count() >= 2; }, 20000)) << "keel never made its second call";
  const bool stored = wait_for(
      [&] {
        StoreOptions so;
        so.path = keel_home + "/keel.db";
        so.read_only = true;
        auto store = open_sqlite_store(so);
        if (!store.ok()) return false;
        auto runs = (*store)->find_interrupted_runs();
        if (!runs.ok() || runs->size() != 1) return false;
        auto msgs = (*store)->load_messages((*runs)[0].session_id);
        return msgs.ok() && msgs->size() == 4;
      },
      20000);
  ASSERT_TRUE(stored) << "the round before the model call in flight was never stored";
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status));

  std::string session_id;
  {
    StoreOptions so;
    so.path = keel_home + "/keel.db";
    auto store = open_sqlite_store(so);
    ASSERT_TRUE(store.ok()) << store.status().to_string();
    auto interrupted = (*store)->find_interrupted_runs();
    ASSERT_TRUE(interrupted.ok());
    ASSERT_EQ(interrupted->size(), 1u);
    session_id = (*interrupted)[0].session_id;
    auto msgs = (*store)->load_messages(session_id);
    ASSERT_TRUE(msgs.ok());
    ASSERT_EQ(msgs->size(), 4u);  // system, task, the call, its result
    EXPECT_EQ((*msgs)[3].message.content, "the launch code is 4242\n");
  }

  server.push(testing::mock_text("The launch code is 4242."));
  testing::CliOptions opts;
  opts.env = {{"KEEL_HOME", keel_home}};
  opts.cwd = ws.path().string();
  testing::CliRun r = testing::run_cli(
      KEEL_BINARY, {"resume", session_id, "--base-url", server.base_url(), "--model", "mock", "--no-stream"}, opts);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("The launch code is 4242."), std::string::npos) << r.out;
  // The resumed request carried the committed tool result.
  auto bodies = server.requests();
  ASSERT_EQ(bodies.size(), 3u);
  EXPECT_NE(bodies[2].body.find("the launch code is 4242"), std::string::npos);

  StoreOptions so;
  so.path = keel_home + "/keel.db";
  auto store = open_sqlite_store(so);
  ASSERT_TRUE(store.ok());
  auto msgs = (*store)->load_messages(session_id);
  ASSERT_TRUE(msgs.ok());
  ASSERT_EQ(msgs->size(), 5u);
  int tasks = 0, results = 0;
  for (const auto& m : *msgs) {
    tasks += m.message.role == Role::kUser;
    results += m.message.role == Role::kTool;
  }
  EXPECT_EQ(tasks, 1);
  EXPECT_EQ(results, 1);
  EXPECT_EQ(msgs->back().message.content, "The launch code is 4242.");
  auto runs = (*store)->list_runs(session_id);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].state, RunState::kFinished);

  // Nothing left to resume.
  testing::CliRun again = testing::run_cli(
      KEEL_BINARY, {"resume", session_id, "--base-url", server.base_url(), "--model", "mock"}, opts);
  EXPECT_EQ(again.exit_code, 3) << again.err;
  EXPECT_NE(again.err.find("already finished"), std::string::npos) << again.err;
}

TEST(CrashResumeE2e, ResumeOfAnUnknownIdIsNotFound) {
  testing::TempDir home;
  testing::CliOptions opts;
  opts.env = {{"KEEL_HOME", (home.path() / "keel").string()}};
  testing::CliRun r = testing::run_cli(KEEL_BINARY, {"resume", "r_00000000deadbeef", "--model", "rules"}, opts);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("r_00000000deadbeef"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace keel
