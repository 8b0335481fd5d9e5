#include "store_test_util.hpp"

namespace keel::testing {
namespace {

using TraceStoreTest = StoreTest;

TEST_F(TraceStoreTest, SpansRoundTripOrderedByStart) {
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

  // Recording a span again replaces it (e.g. on end, with its duration).
  tool.duration_us = 40;
  KEEL_ASSERT_OK(store_->record_span(tool));
  EXPECT_EQ(store_->list_spans("trace1")->size(), 3u);
  EXPECT_EQ(store_->list_spans("trace1")->at(2).duration_us, 40);
}

TEST_F(TraceStoreTest, BadSpansAreRefused) {
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

}  // namespace
}  // namespace keel::testing
