#include "store_test_util.hpp"

namespace keel::testing {
namespace {

using TraceStoreTest = StoreTest;

TEST_P(TraceStoreTest, SpansRoundTripOrderedByStart) {
  std::string sid = new_session();
  auto run = store_->create_run({sid, "t", 0});
  ASSERT_TRUE(run.ok());
  SpanRecord root{"trace1", "root", "", sid, *run, "run", "agent run", 1000, 900, "ok", R"({"rounds":2})"};
  SpanRecord tool{"trace1", "tool1", "root", sid, *run, "tool", "fs_read", 1500, 20, "error", R"({"path":"ü"})"};
  SpanRecord model{"trace1", "model1", "root", "", "", "model", "chat", 1100, 300, "ok", ""};
  SpanRecord elsewhere{"trace2", "x", "", "", "", "run", "other", 1, 1, "ok", "{}"};
  for (const SpanRecord& s : {tool, root, model, elsewhere}) KEEL_ASSERT_OK(store_->record_span(s));

  auto spans = store_->list_spans("trace1");
  ASSERT_TRUE(spans.ok());
  ASSERT_EQ(spans->size(), 3u);
  EXPECT_EQ((*spans)[0].span_id, "root");
  EXPECT_EQ((*spans)[1].span_id, "model1");
  EXPECT_EQ((*spans)[2].span_id, "tool1");
  const SpanRecord& got = (*spans)[2];
  EXPECT_EQ(got.trace_id, "trace1");
  EXPECT_EQ(got.parent_span_id, "root");
  EXPECT_EQ(got.session_id, sid);
  EXPECT_EQ(got.run_id, *run);
  EXPECT_EQ(got.kind, "tool");
  EXPECT_EQ(got.name, "fs_read");
  EXPECT_EQ(got.start_us, 1500);
  EXPECT_EQ(got.duration_us, 20);
  EXPECT_EQ(got.status, "error");
  EXPECT_EQ(got.attributes, R"({"path":"ü"})");
  EXPECT_EQ((*spans)[1].attributes, "{}");
  EXPECT_EQ((*spans)[1].session_id, "");

  // Recording a span again replaces every field but its ids (e.g. on end, with its duration), also
  // inside a transaction that wrote other spans first.
  tool.duration_us = 40;
  KEEL_ASSERT_OK(store_->record_span(tool));
  EXPECT_EQ(store_->list_spans("trace1")->size(), 3u);
  EXPECT_EQ(store_->list_spans("trace1")->at(2).duration_us, 40);
  SpanRecord later{"trace1", "tool2", "root", sid, *run, "tool", "fs_stat", 1700, 5, "ok", "{}"};
  tool = {"trace1", "tool1", "model1", "", "", "tool", "fs_write", 1800, 50, "ok", R"({"bytes":3})"};
  KEEL_ASSERT_OK(store_->write_together([&]() -> Status {
    KEEL_TRY(store_->record_span(later));
    return store_->record_span(tool);
  }));
  spans = store_->list_spans("trace1");
  ASSERT_TRUE(spans.ok());
  ASSERT_EQ(spans->size(), 4u);
  EXPECT_EQ((*spans)[2].span_id, "tool2");
  const SpanRecord& replaced = (*spans)[3];
  EXPECT_EQ(replaced.span_id, "tool1");
  EXPECT_EQ(replaced.parent_span_id, "model1");
  EXPECT_EQ(replaced.session_id, "");
  EXPECT_EQ(replaced.run_id, "");
  EXPECT_EQ(replaced.name, "fs_write");
  EXPECT_EQ(replaced.start_us, 1800);
  EXPECT_EQ(replaced.duration_us, 50);
  EXPECT_EQ(replaced.status, "ok");
  EXPECT_EQ(replaced.attributes, R"({"bytes":3})");
}

TEST_P(TraceStoreTest, BadSpansAreRefused) {
  SpanRecord bad{"t", "s", "", "", "", "run", "n", 1, 1, "ok", "[1,2]"};
  EXPECT_EQ(store_->record_span(bad).code(), ErrorCode::kInvalidArgument);
  bad.attributes = "{not json";
  EXPECT_EQ(store_->record_span(bad).code(), ErrorCode::kInvalidArgument);
  bad.attributes = "";
  bad.session_id = "s_missing";
  Status missing = store_->record_span(bad);
  EXPECT_EQ(missing.code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.message().find("s_missing"), std::string::npos);
  bad.session_id = "";
  bad.span_id = "";
  EXPECT_EQ(store_->record_span(bad).code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(store_->list_spans("t")->empty());
}

using StepStoreTest = StoreTest;

// A step as a run writes it (messages, tool runs, spans), in one transaction: returns the seq of
// its first message (the next seq when it has none).
Result<int64_t> write_step(Store& store, std::string_view sid, std::span<const NewMessage> messages,
                           std::span<const ToolRunRecord> runs, std::span<const SpanRecord> spans) {
  int64_t first = 0;
  KEEL_TRY(store.write_together([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(first, store.append_messages(sid, messages));
    for (const ToolRunRecord& r : runs) KEEL_TRY(store.record_tool_run(r).status());
    for (const SpanRecord& span : spans) KEEL_TRY(store.record_span(span));
    return Status::Ok();
  }));
  return first;
}

// A step's messages, tool runs and spans land together, in one transaction.
TEST_P(StepStoreTest, AStepIsSavedWhole) {
  std::string sid = new_session();
  auto run = store_->create_run({sid, "t", 0});
  ASSERT_TRUE(run.ok());
  std::vector<NewMessage> messages{{*run, Message::assistant("calling"), 3, 0}, {*run, Message::user("result"), 1, 0}};
  ToolRunRecord tool_run;
  tool_run.run_id = *run;
  tool_run.call_id = "c1";
  tool_run.tool = "fs_read";
  std::vector<ToolRunRecord> runs{tool_run};
  std::vector<SpanRecord> spans{{*run, "tool-1", "", sid, *run, "tool", "fs_read", 10, 5, "ok", R"({"bytes":2})"}};
  auto first = write_step(*store_, sid, messages, runs, spans);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(*first, 1);
  EXPECT_EQ(store_->load_messages(sid)->size(), 2u);
  EXPECT_EQ(store_->list_tool_runs(*run)->size(), 1u);
  EXPECT_EQ(store_->list_spans(*run)->size(), 1u);
  // Nothing but records: no messages, no seq used.
  spans[0].span_id = "tool-2";
  auto none = write_step(*store_, sid, {}, runs, spans);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, 3);
  EXPECT_EQ(store_->list_tool_runs(*run)->size(), 2u);
}

// One bad record keeps the whole step out: the messages are not saved without their records.
TEST_P(StepStoreTest, ABadRecordKeepsTheWholeStepOut) {
  std::string sid = new_session();
  auto run = store_->create_run({sid, "t", 0});
  ASSERT_TRUE(run.ok());
  std::vector<NewMessage> messages{{*run, Message::assistant("calling"), 3, 0}};
  ToolRunRecord orphan;
  orphan.run_id = "r_missing";
  orphan.tool = "fs_read";
  std::vector<ToolRunRecord> runs{orphan};
  auto refused = write_step(*store_, sid, messages, runs, {});
  EXPECT_EQ(refused.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(refused.status().message().find("r_missing"), std::string::npos) << refused.status().message();
  std::vector<SpanRecord> bad{{*run, "s", "", sid, *run, "tool", "x", 1, 1, "ok", "[1]"}};
  EXPECT_EQ(write_step(*store_, sid, messages, {}, bad).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(store_->load_messages(sid)->empty());
  EXPECT_TRUE(store_->list_spans(*run)->empty());
  EXPECT_TRUE(store_->list_tool_runs(*run)->empty());
}

// Writes grouped with write_together() are one transaction: kept together, or none of them.
TEST_P(StepStoreTest, WritesTogetherAreKeptTogetherOrNotAtAll) {
  std::string kept_session;
  KEEL_ASSERT_OK(store_->write_together([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(kept_session, store_->create_session(SessionInfo{"kept", "", "", "", false, 0}));
    KEEL_ASSIGN_OR_RETURN(std::string run, store_->create_run({kept_session, "t", 0}));
    return store_->append_message(kept_session, run, Message::user("hi"), 1).status();
  }));
  EXPECT_EQ(store_->load_messages(kept_session)->size(), 1u);

  std::string lost_session;
  Status failed = store_->write_together([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(lost_session, store_->create_session(SessionInfo{"lost", "", "", "", false, 0}));
    KEEL_TRY(store_->append_message(lost_session, "", Message::user("hi"), 1).status());
    return store_->append_message("s_missing", "", Message::user("hi"), 1).status();  // fails
  });
  EXPECT_EQ(failed.code(), ErrorCode::kNotFound);
  EXPECT_EQ(store_->get_session(lost_session).status().code(), ErrorCode::kNotFound);
  // The store goes on working after the rollback.
  EXPECT_TRUE(store_->append_message(kept_session, "", Message::user("again"), 1).ok());
  EXPECT_EQ(store_->load_messages(kept_session)->size(), 2u);
}

KEEL_STORE_ENGINES(TraceStoreTest);
KEEL_STORE_ENGINES(StepStoreTest);

}  // namespace
}  // namespace keel::testing
