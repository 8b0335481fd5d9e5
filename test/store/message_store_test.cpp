#include <thread>

#include "store_test_util.hpp"

namespace keel::testing {
namespace {

void expect_same(const Message& got, const Message& want) {
  EXPECT_EQ(got.role, want.role);
  EXPECT_EQ(got.content, want.content);
  EXPECT_EQ(got.reasoning, want.reasoning);
  EXPECT_EQ(got.tool_call_id, want.tool_call_id);
  EXPECT_EQ(got.name, want.name);
  EXPECT_EQ(got.metadata, want.metadata);
  ASSERT_EQ(got.tool_calls.size(), want.tool_calls.size());
  for (size_t i = 0; i < want.tool_calls.size(); ++i) {
    EXPECT_EQ(got.tool_calls[i].id, want.tool_calls[i].id);
    EXPECT_EQ(got.tool_calls[i].name, want.tool_calls[i].name);
    EXPECT_EQ(got.tool_calls[i].arguments, want.tool_calls[i].arguments);
  }
}

using MessageStoreTest = StoreTest;

TEST_P(MessageStoreTest, EveryMessageFieldRoundTrips) {
  std::string sid = new_session();
  auto run = store_->create_run({sid, "task", 0});
  ASSERT_TRUE(run.ok());

  Message full;
  full.role = Role::kAssistant;
  full.content = "Héllo → 世界 🚀\n\t\"quoted\" \\ back\\slash";
  full.reasoning = "thinking… step 1\nstep 2";
  full.tool_calls = {{"call_1_1", "fs_read", R"({"path":"ü/ß.txt","n":3})"},
                     {"call_1_2", "shell", "not json at all { \" \n"},
                     {"", "", ""}};
  full.tool_call_id = "call_0_9";
  full.name = "some_tool";
  full.metadata = {{"round", "3"}, {"status", "ok"}, {"ümlaut key", "line1\nline2"}, {"empty", ""}};

  ToolResult result{"call_1_1", "fs_read", ToolStatus::kTimeout, "partial output", false, 5};
  Message tool = Message::tool(result);
  Message empty;
  empty.role = Role::kSystem;

  clock_ = 42'000;
  auto s1 = store_->append_message(sid, *run, full, 1234);
  auto s2 = store_->append_message(sid, "", tool, 0);
  auto s3 = store_->append_message(sid, "", empty, 0);
  ASSERT_TRUE(s1.ok() && s2.ok() && s3.ok()) << s1.status().to_string();
  EXPECT_EQ(*s1, 1);
  EXPECT_EQ(*s2, 2);
  EXPECT_EQ(*s3, 3);

  reopen();  // read back from the file, not from any cache
  auto loaded = store_->load_messages(sid);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  ASSERT_EQ(loaded->size(), 3u);
  expect_same((*loaded)[0].message, full);
  EXPECT_EQ((*loaded)[0].seq, 1);
  EXPECT_EQ((*loaded)[0].run_id, *run);
  EXPECT_EQ((*loaded)[0].tokens, 1234);
  EXPECT_EQ((*loaded)[0].created_ms, 42'000);
  expect_same((*loaded)[1].message, tool);
  EXPECT_EQ((*loaded)[1].message.metadata.at("status"), "timeout");
  EXPECT_EQ((*loaded)[1].run_id, "");
  expect_same((*loaded)[2].message, empty);
}

TEST_P(MessageStoreTest, SeqsAreContiguousAcrossSinglesAndBatches) {
  std::string sid = new_session();
  std::string other = new_session();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(store_->append_message(sid, "", Message::user("u"), 0).ok());
  ASSERT_EQ(*store_->append_message(other, "", Message::user("elsewhere"), 0), 1);  // per-session numbering

  std::vector<NewMessage> batch;
  for (int i = 0; i < 4; ++i) batch.push_back({"", Message::assistant("a" + std::to_string(i)), i, 7});
  auto first = store_->append_messages(sid, batch);
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  EXPECT_EQ(*first, 4);
  auto none = store_->append_messages(sid, {});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, 8);

  auto loaded = store_->load_messages(sid);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), 7u);
  for (size_t i = 0; i < loaded->size(); ++i) EXPECT_EQ((*loaded)[i].seq, static_cast<int64_t>(i + 1));
  EXPECT_EQ((*loaded)[3].message.content, "a0");
  EXPECT_EQ((*loaded)[3].created_ms, 7);
  EXPECT_EQ((*loaded)[6].tokens, 3);
}

TEST_P(MessageStoreTest, BatchWithAnUnknownRunWritesNothing) {
  std::string sid = new_session();
  ASSERT_TRUE(store_->append_message(sid, "", Message::user("before"), 0).ok());
  std::vector<NewMessage> batch = {{"", Message::user("ok"), 0, 0}, {"r_missing", Message::user("bad"), 0, 0}};
  auto r = store_->append_messages(sid, batch);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(r.status().message().find("r_missing"), std::string::npos);
  auto loaded = store_->load_messages(sid);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), 1u);
  EXPECT_EQ((*loaded)[0].message.content, "before");
}

TEST_P(MessageStoreTest, AppendTouchesTheSession) {
  std::string sid = new_session();
  clock_ += 1000;
  ASSERT_TRUE(store_->append_message(sid, "", Message::user("x"), 0).ok());
  EXPECT_EQ(store_->get_session(sid)->updated_ms, clock_);
}

TEST_P(MessageStoreTest, ThreadsAppendingToOneSessionGetDistinctSeqs) {
  std::string sid = new_session();
  constexpr int kThreads = 4;
  constexpr int kEach = 50;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        if (!store_->append_message(sid, "", Message::user(std::to_string(t)), 0).ok()) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto loaded = store_->load_messages(sid);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), static_cast<size_t>(kThreads * kEach));
  for (size_t i = 0; i < loaded->size(); ++i) EXPECT_EQ((*loaded)[i].seq, static_cast<int64_t>(i + 1));
}

KEEL_STORE_ENGINES(MessageStoreTest);

}  // namespace
}  // namespace keel::testing
