#include "store_test_util.hpp"

namespace keel::testing {
namespace {

using RunStoreTest = StoreTest;

TEST_P(RunStoreTest, CreateUpdateGetRoundTrip) {
  std::string sid = new_session();
  auto id = store_->create_run({sid, "summarise README.md", 0});
  ASSERT_TRUE(id.ok()) << id.status().to_string();
  EXPECT_EQ(id->rfind("r_", 0), 0u);
  EXPECT_EQ(id->size(), 34u);  // 128 random bits in hex

  auto fresh = store_->get_run(*id);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(fresh->session_id, sid);
  EXPECT_EQ(fresh->task, "summarise README.md");
  EXPECT_EQ(fresh->state, RunState::kRunning);
  EXPECT_EQ(fresh->started_ms, clock_);
  EXPECT_FALSE(fresh->ended_ms.has_value());
  EXPECT_FALSE(fresh->checkpoint.has_value());

  RunUpdate waiting;
  waiting.state = RunState::kWaitingApproval;
  waiting.rounds = 2;
  waiting.usage = Usage{100, 20};
  waiting.checkpoint = R"({"pending":["call_2_1"]})";
  KEEL_ASSERT_OK(store_->update_run(*id, waiting));
  auto mid = store_->get_run(*id);
  ASSERT_TRUE(mid.ok());
  EXPECT_EQ(mid->state, RunState::kWaitingApproval);
  EXPECT_EQ(mid->rounds, 2);
  EXPECT_EQ(mid->usage.prompt_tokens, 100);
  EXPECT_EQ(mid->usage.completion_tokens, 20);
  EXPECT_EQ(mid->checkpoint, waiting.checkpoint);
  EXPECT_FALSE(mid->ended_ms.has_value());

  clock_ += 777;
  RunUpdate done;
  done.state = RunState::kFinished;
  done.answer = "The README explains the build.";
  done.checkpoint = "";  // clears it
  KEEL_ASSERT_OK(store_->update_run(*id, done));
  auto end = store_->get_run(*id);
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(end->state, RunState::kFinished);
  EXPECT_EQ(end->rounds, 2);  // untouched fields keep their values
  EXPECT_EQ(end->usage.prompt_tokens, 100);
  EXPECT_EQ(end->answer, "The README explains the build.");
  EXPECT_EQ(end->ended_ms, clock_);
  EXPECT_FALSE(end->checkpoint.has_value());

  RunUpdate failed;
  failed.state = RunState::kFailed;
  failed.error = "model unavailable";
  failed.ended_ms = 5;
  KEEL_ASSERT_OK(store_->update_run(*id, failed));
  EXPECT_EQ(store_->get_run(*id)->ended_ms, 5);
  EXPECT_EQ(store_->get_run(*id)->error, "model unavailable");

  auto missing = store_->update_run("r_nope", done);
  EXPECT_EQ(missing.code(), ErrorCode::kNotFound);
  EXPECT_EQ(missing.message(), "no run 'r_nope'");
}

TEST_P(RunStoreTest, ListLatestAndInterrupted) {
  std::string sid = new_session();
  std::string other = new_session();
  auto r1 = store_->create_run({sid, "one", 100});
  auto r2 = store_->create_run({sid, "two", 200});
  auto r3 = store_->create_run({other, "three", 150});
  ASSERT_TRUE(r1.ok() && r2.ok() && r3.ok());
  RunUpdate finish;
  finish.state = RunState::kFinished;
  KEEL_ASSERT_OK(store_->update_run(*r1, finish));
  RunUpdate wait;
  wait.state = RunState::kWaitingApproval;
  KEEL_ASSERT_OK(store_->update_run(*r3, wait));

  auto runs = store_->list_runs(sid);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].id, *r1);
  EXPECT_EQ((*runs)[1].id, *r2);
  EXPECT_EQ(store_->latest_run(sid)->id, *r2);

  auto interrupted = store_->find_interrupted_runs();
  ASSERT_TRUE(interrupted.ok());
  ASSERT_EQ(interrupted->size(), 2u);
  EXPECT_EQ((*interrupted)[0].id, *r3);  // started at 150
  EXPECT_EQ((*interrupted)[1].id, *r2);

  std::string idle = new_session();
  auto none = store_->latest_run(idle);
  EXPECT_EQ(none.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(none.status().message().find("has no runs"), std::string::npos);
  EXPECT_TRUE(store_->list_runs(idle)->empty());
}

TEST_P(RunStoreTest, ToolRunsRoundTripInOrder) {
  std::string sid = new_session();
  auto run = store_->create_run({sid, "t", 0});
  ASSERT_TRUE(run.ok());
  ToolRunRecord a;
  a.run_id = *run;
  a.call_id = "call_1_1";
  a.tool = "fs_read";
  a.alias = "read_file";
  a.raw_args = R"({'path': 'a.txt'})";
  a.resolved_args = R"({"path":"/ws/a.txt"})";
  a.started_ms = 10;
  a.ended_ms = 25;
  a.duration_ms = 15;
  a.status = ToolStatus::kOk;
  a.result = "contents ✓";
  ToolRunRecord b = a;
  b.call_id = "call_1_2";
  b.status = ToolStatus::kTimeout;
  b.result = "";
  b.error = "timed out after 30000 ms";

  auto ida = store_->record_tool_run(a);
  auto idb = store_->record_tool_run(b);
  ASSERT_TRUE(ida.ok() && idb.ok()) << ida.status().to_string();
  auto runs = store_->list_tool_runs(*run);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  const ToolRunRecord& got = (*runs)[0];
  EXPECT_EQ(got.id, *ida);
  EXPECT_EQ(got.run_id, a.run_id);
  EXPECT_EQ(got.call_id, a.call_id);
  EXPECT_EQ(got.tool, a.tool);
  EXPECT_EQ(got.alias, a.alias);
  EXPECT_EQ(got.raw_args, a.raw_args);
  EXPECT_EQ(got.resolved_args, a.resolved_args);
  EXPECT_EQ(got.started_ms, 10);
  EXPECT_EQ(got.ended_ms, 25);
  EXPECT_EQ(got.duration_ms, 15);
  EXPECT_EQ(got.status, ToolStatus::kOk);
  EXPECT_EQ(got.result, a.result);
  EXPECT_EQ((*runs)[1].status, ToolStatus::kTimeout);
  EXPECT_EQ((*runs)[1].error, b.error);
  // Each insert gives its own row's id (SQLite reads the connection's last rowid, PostgreSQL
  // RETURNING), also inside a transaction holding other inserts.
  EXPECT_EQ((*runs)[1].id, *idb);
  EXPECT_NE(*ida, *idb);
  Result<int64_t> idc = Status::Internal("not run");
  ASSERT_TRUE(store_
                  ->write_together([&]() -> Status {
                    KEEL_TRY(store_->append_message(sid, *run, Message::user("between"), 0).status());
                    idc = store_->record_tool_run(a);
                    return idc.status();
                  })
                  .ok());
  ASSERT_TRUE(idc.ok());
  runs = store_->list_tool_runs(*run);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 3u);
  EXPECT_EQ((*runs)[2].id, *idc);

  ToolRunRecord orphan = a;
  orphan.run_id = "r_missing";
  EXPECT_EQ(store_->record_tool_run(orphan).status().code(), ErrorCode::kNotFound);
  orphan.run_id = "";
  EXPECT_EQ(store_->record_tool_run(orphan).status().code(), ErrorCode::kInvalidArgument);
}

TEST(RunStateTest, NamesAndTerminality) {
  EXPECT_EQ(run_state_name(RunState::kWaitingApproval), "waiting_approval");
  EXPECT_EQ(run_state_name(RunState::kAborted), "aborted");
  EXPECT_TRUE(run_state_is_terminal(RunState::kFailed));
  EXPECT_FALSE(run_state_is_terminal(RunState::kRunning));
  EXPECT_FALSE(run_state_is_terminal(RunState::kWaitingApproval));
}

KEEL_STORE_ENGINES(RunStoreTest);

}  // namespace
}  // namespace keel::testing
