// keel serve's records in the store: accepting a run in one transaction, checkpoints, and the
// per-session event log.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store_test_util.hpp"

namespace keel::testing {
namespace {

class ServerStoreTest : public StoreTest {};

TEST_P(ServerStoreTest, AcceptingARunWritesRunTaskAndCheckpointTogether) {
  std::string sid = new_session();
  RunInfo info;
  info.id = "r_00000000000000ab";
  info.session_id = sid;
  info.task = "do it";
  auto id = store_->accept_server_run(info, Message::user("do it"), R"({"profile":"fast"})", ServerLease{});
  ASSERT_TRUE(id.ok()) << id.status().to_string();
  EXPECT_EQ(*id, "r_00000000000000ab");
  auto run = store_->get_run(*id);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->state, RunState::kRunning);
  auto messages = store_->load_messages(sid);
  ASSERT_EQ(messages->size(), 1u);
  EXPECT_EQ((*messages)[0].run_id, *id);
  EXPECT_EQ((*messages)[0].message.content, "do it");
  auto checkpoints = store_->list_server_checkpoints();
  ASSERT_EQ(checkpoints->size(), 1u);
  EXPECT_EQ((*checkpoints)[0].settings, R"({"profile":"fast"})");
  EXPECT_EQ((*checkpoints)[0].waiting, "");

  // The same id again fails and writes nothing more.
  EXPECT_FALSE(store_->accept_server_run(info, Message::user("again"), "{}", ServerLease{}).ok());
  EXPECT_EQ(store_->load_messages(sid)->size(), 1u);
  // A missing session: NotFound, nothing written.
  RunInfo orphan;
  orphan.session_id = "s_0000000000000000";
  EXPECT_EQ(store_->accept_server_run(orphan, Message::user("x"), "{}", ServerLease{}).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(store_->list_server_checkpoints()->size(), 1u);
  RunInfo bad;
  bad.id = "r_XYZ";
  bad.session_id = new_session();
  EXPECT_EQ(store_->accept_server_run(bad, Message::user("x"), "{}", ServerLease{}).status().code(),
            ErrorCode::kInvalidArgument);
}

// A session has one active run, whichever instance accepted it; once that run has ended, a
// checkpoint it left behind does not hold the session.
TEST_P(ServerStoreTest, ASessionAcceptsOneActiveRunAtATime) {
  std::string sid = new_session();
  RunInfo info;
  info.session_id = sid;
  info.task = "first";
  auto first = store_->accept_server_run(info, Message::user("first"), "{}", ServerLease{"a", 10000});
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  auto other = open(options());  // another instance
  ASSERT_TRUE(other.ok());
  auto second = (*other)->accept_server_run(info, Message::user("second"), "{}", ServerLease{"b", 10000});
  ASSERT_EQ(second.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_NE(second.status().message().find(*first), std::string::npos) << second.status().message();
  EXPECT_EQ(store_->load_messages(sid)->size(), 1u);
  RunUpdate done;
  done.state = RunState::kFinished;
  KEEL_ASSERT_OK(store_->update_run(*first, done));
  auto third = (*other)->accept_server_run(info, Message::user("third"), "{}", ServerLease{"b", 10000});
  ASSERT_TRUE(third.ok()) << third.status().to_string();
  auto all = store_->list_server_checkpoints();
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].run_id, *third);
  EXPECT_EQ((*all)[0].owner, "b");
}

TEST_P(ServerStoreTest, CheckpointsAreReplacedAndGoWithTheirRun) {
  std::string sid = new_session();
  auto run = store_->create_run({sid, "t", 0});
  ServerCheckpoint c;
  c.run_id = *run;
  c.session_id = sid;
  c.waiting = "approval";
  KEEL_ASSERT_OK(store_->put_server_checkpoint(c));
  c.waiting = "answer";
  KEEL_ASSERT_OK(store_->put_server_checkpoint(c));
  auto all = store_->list_server_checkpoints();
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].waiting, "answer");
  ServerCheckpoint missing;
  missing.run_id = "r_0000000000000000";
  missing.session_id = sid;
  EXPECT_EQ(store_->put_server_checkpoint(missing).code(), ErrorCode::kNotFound);
  KEEL_ASSERT_OK(store_->delete_server_checkpoint(*run));
  KEEL_ASSERT_OK(store_->delete_server_checkpoint(*run));  // none: still ok
  EXPECT_TRUE(store_->list_server_checkpoints()->empty());
  KEEL_ASSERT_OK(store_->put_server_checkpoint(c));
  KEEL_ASSERT_OK(store_->delete_session(sid));  // cascades
  EXPECT_TRUE(store_->list_server_checkpoints()->empty());
}

TEST_P(ServerStoreTest, EventsAreKeptInOrderPerSession) {
  std::string a = new_session();
  std::string b = new_session();
  std::vector<ServerEvent> batch;
  for (int i = 1; i <= 5; ++i) batch.push_back({a, i, "r_1", "e", "{\"i\":" + std::to_string(i) + "}", 0});
  batch.push_back({b, 1, "", "other", "{}", 0});
  KEEL_ASSERT_OK(store_->append_server_events(batch));
  auto after2 = store_->list_server_events(a, 2, 2);
  ASSERT_EQ(after2->size(), 2u);
  EXPECT_EQ((*after2)[0].seq, 3);
  EXPECT_EQ((*after2)[1].data, "{\"i\":4}");
  EXPECT_EQ(*store_->last_server_event_seq(a), 5);
  EXPECT_EQ(*store_->last_server_event_seq(b), 1);
  EXPECT_EQ(*store_->last_server_event_seq("s_none"), 0);
  // A seq already stored is an error, and the batch it came in is not written.
  std::vector<ServerEvent> dup = {{a, 6, "", "e", "{}", 0}, {a, 5, "", "e", "{}", 0}};
  EXPECT_FALSE(store_->append_server_events(dup).ok());
  EXPECT_EQ(*store_->last_server_event_seq(a), 5);
  // Events of a deleted session are dropped, not an error.
  KEEL_ASSERT_OK(store_->delete_session(b));
  KEEL_ASSERT_OK(store_->append_server_events(std::vector<ServerEvent>{{b, 2, "", "late", "{}", 0}}));
  EXPECT_EQ(*store_->last_server_event_seq(b), 0);
}

// SQLite: one process serves a workspace from a database; PostgreSQL: several serve it together.
TEST_P(ServerStoreTest, SqliteServesAWorkspaceFromOneProcessPostgresFromSeveral) {
  auto first = store_->claim_server("/ws");
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  EXPECT_EQ((*first)->exclusive(), !postgres());
  auto other = open(options());  // another instance on the same database
  ASSERT_TRUE(other.ok()) << other.status().to_string();
  auto second = (*other)->claim_server("/ws");
  if (postgres()) {
    ASSERT_TRUE(second.ok()) << second.status().to_string();
    EXPECT_FALSE((*second)->exclusive());
    return;
  }
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_NE(second.status().message().find("another keel serve already serves workspace /ws"), std::string::npos)
      << second.status().message();
  EXPECT_NE(second.status().message().find("PostgreSQL"), std::string::npos) << second.status().message();
  EXPECT_TRUE((*other)->claim_server("/elsewhere").ok());  // another workspace is free

  first->reset();  // the first instance stops
  EXPECT_TRUE((*other)->claim_server("/ws").ok());
}

TEST_P(ServerStoreTest, AnExclusiveClaimEndsWithItsProcess) {
  store_.reset();  // no connection is open across fork()
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto child = open(options());
    if (!child.ok()) ::_exit(2);
    auto claim = (*child)->claim_server("/ws");
    if (!claim.ok()) ::_exit(3);
    (void)!::write(ready[1], "x", 1);
    ::pause();  // holds the claim until killed
    ::_exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  reopen();
  // Held by the child: SQLite refuses a second claim; PostgreSQL's claims are shared.
  EXPECT_EQ(store_->claim_server("/ws").ok(), postgres());
  ::kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  // The kernel lets SQLite's lock file go at once.
  Result<std::unique_ptr<StoreClaim>> after = Status::Unavailable("not tried");
  for (int i = 0; i < 50 && !after.ok(); ++i) {
    after = store_->claim_server("/ws");
    if (!after.ok()) ::usleep(100000);
  }
  EXPECT_TRUE(after.ok()) << after.status().to_string();
  ::close(ready[0]);
  ::close(ready[1]);
}

KEEL_STORE_ENGINES(ServerStoreTest);

}  // namespace
}  // namespace keel::testing
