// The session recorder's writer: steps committed close together share one transaction (a group
// commit), a step that cannot be written keeps the steps before it, and steps are written without
// anyone waiting for them once the gathering window ends.
#include "runtime/session_recorder.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "keel/core/token_counter.hpp"
#include "keel/store/sqlite_store.hpp"
#include "support/sqlite_wal.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using detail::SessionRecorder;
using std::chrono::milliseconds;

// Long enough that only settle() writes what is queued: the tests decide when groups form.
constexpr milliseconds kNeverByItself{3'600'000};

class SessionRecorderTest : public ::testing::Test {
 protected:
  void open(int64_t max_page_count = 0) {
    StoreOptions so;
    so.path = db_path();
    so.max_page_count = max_page_count;
    auto s = open_sqlite_store(so);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    store_ = std::move(s).value();
  }
  std::filesystem::path db_path() const { return dir_.path() / "keel.db"; }
  int commits() const { return testing::wal_commits(db_path().string() + "-wal"); }
  std::vector<std::string> stored(const std::string& session) {
    std::vector<std::string> out;
    auto m = store_->load_messages(session);
    EXPECT_TRUE(m.ok()) << m.status().to_string();
    if (m.ok()) {
      for (const StoredMessage& s : *m) out.push_back(s.message.content);
    }
    return out;
  }

  testing::TempDir dir_;
  std::unique_ptr<Store> store_;
  EstimatingTokenCounter counter_;
};

TEST_F(SessionRecorderTest, StepsQueuedTogetherAreOneTransaction) {
  open();
  SessionRecorder recorder(*store_, counter_, dir_.path().string(), kNeverByItself);
  ASSERT_TRUE(recorder.start_new_session("task", "model").ok());
  const std::vector<std::string> before = stored(recorder.session_id());
  const int commits_before = commits();
  ASSERT_GT(commits_before, 0) << "no write-ahead log to read, or one reset by a checkpoint";

  for (int step = 1; step <= 3; ++step) {
    const std::vector<Message> messages = {Message::assistant("call " + std::to_string(step)),
                                           Message::user("result " + std::to_string(step))};
    recorder.commit(messages);
  }
  EXPECT_EQ(stored(recorder.session_id()), before);  // nothing written yet: the window is open
  recorder.settle();
  ASSERT_TRUE(recorder.error().ok()) << recorder.error().to_string();

  EXPECT_EQ(commits() - commits_before, 1);
  std::vector<std::string> expected = before;
  for (int step = 1; step <= 3; ++step) {
    expected.push_back("call " + std::to_string(step));
    expected.push_back("result " + std::to_string(step));
  }
  EXPECT_EQ(stored(recorder.session_id()), expected);  // in order, nothing lost
}

// A group that cannot be written as one is written step by step: the steps before the failing one
// are kept as they would have been without grouping, the failure is reported, and nothing after it
// is written out of order.
TEST_F(SessionRecorderTest, AStepThatCannotBeWrittenKeepsTheStepsBeforeIt) {
  open(/*max_page_count=*/60);  // the schema takes about 50 pages: a 400 KB message cannot fit
  SessionRecorder recorder(*store_, counter_, dir_.path().string(), kNeverByItself);
  ASSERT_TRUE(recorder.start_new_session("task", "model").ok());
  const std::vector<std::string> before = stored(recorder.session_id());

  const std::vector<Message> first = {Message::user("small step")};
  const std::vector<Message> huge = {Message::user(std::string(400 * 1024, 'z'))};
  const std::vector<Message> after = {Message::user("after the failure")};
  recorder.commit(first);
  recorder.commit(huge);
  recorder.commit(after);
  recorder.settle();

  EXPECT_NE(recorder.error().message().find("could not save the conversation"), std::string::npos)
      << recorder.error().to_string();
  std::vector<std::string> expected = before;
  expected.push_back("small step");
  EXPECT_EQ(stored(recorder.session_id()), expected);
}

TEST_F(SessionRecorderTest, StepsAreWrittenWhenTheWindowEndsWithoutAnyoneWaiting) {
  open();
  SessionRecorder recorder(*store_, counter_, dir_.path().string(), milliseconds(5));
  ASSERT_TRUE(recorder.start_new_session("task", "model").ok());
  const std::vector<Message> step = {Message::user("written in the background")};
  recorder.commit(step);
  bool written = false;
  for (int i = 0; i < 1000 && !written; ++i) {  // up to 10 s; normally a few milliseconds
    const std::vector<std::string> now = stored(recorder.session_id());
    written = !now.empty() && now.back() == "written in the background";
    if (!written) std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_TRUE(written);
  EXPECT_TRUE(recorder.error().ok()) << recorder.error().to_string();
}

}  // namespace
}  // namespace keel
