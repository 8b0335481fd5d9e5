// Several processes on one database file: concurrent appends and a writer killed with SIGKILL.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store_test_util.hpp"

namespace keel::testing {
namespace {

// In a forked child: opens its own store and appends `count` messages. Returns an exit code.
int append_in_child(const std::string& path, const std::string& session, const std::string& tag, int count) {
  StoreOptions o;
  o.path = path;
  o.busy_timeout_ms = 30000;
  auto store = open_sqlite_store(o);
  if (!store.ok()) return 2;
  for (int i = 0; i < count; ++i) {
    Message m = Message::user(tag + " " + std::to_string(i));
    if (!(*store)->append_message(session, "", m, 0).ok()) return 3;
  }
  return 0;
}

TEST(MultiProcessTest, TwoProcessesAppendWithoutGapsOrDuplicates) {
  TempDir tmp;
  std::string path = (tmp.path() / "keel.db").string();
  std::string sid;
  {
    StoreOptions o;
    o.path = path;
    auto store = open_sqlite_store(o);
    ASSERT_TRUE(store.ok()) << store.status().to_string();
    auto created = (*store)->create_session({});
    ASSERT_TRUE(created.ok());
    sid = *created;
  }  // no connection is open across fork()

  constexpr int kEach = 200;
  pid_t children[2];
  for (int c = 0; c < 2; ++c) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) ::_exit(append_in_child(path, sid, c == 0 ? "A" : "B", kEach));
    children[c] = pid;
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "child killed by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 0) << "2: open failed; 3: an append failed";
  }

  StoreOptions o;
  o.path = path;
  auto store = open_sqlite_store(o);
  ASSERT_TRUE(store.ok());
  auto loaded = (*store)->load_messages(sid);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  ASSERT_EQ(loaded->size(), 2u * kEach);
  int a = 0;
  int b = 0;
  int next_a = 0;
  int next_b = 0;
  for (size_t i = 0; i < loaded->size(); ++i) {
    const StoredMessage& m = (*loaded)[i];
    EXPECT_EQ(m.seq, static_cast<int64_t>(i + 1));
    // Each child's own messages keep their order.
    if (m.message.content[0] == 'A') {
      EXPECT_EQ(m.message.content, "A " + std::to_string(next_a++));
      ++a;
    } else {
      EXPECT_EQ(m.message.content, "B " + std::to_string(next_b++));
      ++b;
    }
  }
  EXPECT_EQ(a, kEach);
  EXPECT_EQ(b, kEach);
}

TEST(MultiProcessTest, CommittedWritesSurviveKillNine) {
  TempDir tmp;
  std::string path = (tmp.path() / "keel.db").string();
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    StoreOptions o;
    o.path = path;
    auto store = open_sqlite_store(o);
    if (!store.ok()) ::_exit(2);
    SessionInfo info;
    info.title = "survivor";
    auto sid = (*store)->create_session(info);
    if (!sid.ok()) ::_exit(3);
    for (int i = 0; i < 50; ++i) {
      if (!(*store)->append_message(*sid, "", Message::user(std::to_string(i)), 0).ok()) ::_exit(4);
    }
    ::kill(::getpid(), SIGKILL);  // no destructors, no checkpoint, WAL left behind
    ::_exit(5);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  ASSERT_EQ(WTERMSIG(status), SIGKILL);

  StoreOptions o;
  o.path = path;
  auto store = open_sqlite_store(o);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  auto sessions = (*store)->list_sessions({});
  ASSERT_TRUE(sessions.ok());
  ASSERT_EQ(sessions->size(), 1u);
  EXPECT_EQ((*sessions)[0].title, "survivor");
  EXPECT_EQ((*sessions)[0].message_count, 50);
}

}  // namespace
}  // namespace keel::testing
