#include "api/event_log.hpp"

#include <gtest/gtest.h>

#include "keel/store/sqlite_store.hpp"
#include "support/temp_dir.hpp"

namespace keel::testing {
namespace {

class EventLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions o;
    o.path = dir_.path() / "keel.db";
    store_ = std::move(open_sqlite_store(o)).value();
    session_ = *store_->create_session({});
  }
  TempDir dir_;
  std::unique_ptr<Store> store_;
  std::string session_;
};

std::vector<int64_t> seqs_of(const std::vector<api::LoggedEvent>& events) {
  std::vector<int64_t> out;
  for (const auto& e : events) out.push_back(e.seq);
  return out;
}

TEST_F(EventLogTest, NumbersFansOutAndFilters) {
  api::EventLog log(*store_);
  std::vector<api::LoggedEvent> all, run_a;
  ASSERT_TRUE(log.subscribe(session_, "", 0, [&](const api::LoggedEvent& e) { all.push_back(e); return true; }).ok());
  ASSERT_TRUE(log.subscribe(session_, "r_a", 0, [&](const api::LoggedEvent& e) { run_a.push_back(e); return true; }).ok());
  EXPECT_EQ(log.publish(session_, "r_a", "one", {{"x", 1}}), 1);
  EXPECT_EQ(log.publish(session_, "r_b", "two", {{"x", 2}}), 2);
  EXPECT_EQ(log.publish(session_, "r_a", "three", {{"x", 3}}), 3);
  EXPECT_EQ(seqs_of(all), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(seqs_of(run_a), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(all[1].frame.rfind("id: 2\nevent: two\ndata: {", 0), 0u) << all[1].frame;
  auto data = nlohmann::json::parse(all[1].frame.substr(all[1].frame.find("data: ") + 6));
  EXPECT_EQ(data["session_id"], session_);
  EXPECT_EQ(data["seq"], 2);
  EXPECT_EQ(data["x"], 2);
  EXPECT_GT(data["time_us"].get<int64_t>(), 0);
  EXPECT_EQ(log.subscriber_count(), 2u);
}

TEST_F(EventLogTest, ASinkThatReturnsFalseIsDropped) {
  api::EventLog log(*store_);
  int calls = 0;
  ASSERT_TRUE(log.subscribe(session_, "", 0, [&](const api::LoggedEvent&) { return ++calls < 2; }).ok());
  for (int i = 0; i < 5; ++i) log.publish(session_, "", "e", {});
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(log.subscriber_count(), 0u);
}

TEST_F(EventLogTest, ReplaysFromMemoryAndFromTheStoreBeyondIt) {
  api::EventLogOptions o;
  o.memory_events = 4;
  api::EventLog log(*store_, o);
  for (int i = 1; i <= 10; ++i) log.publish(session_, i % 2 ? "r_odd" : "r_even", "e", {{"i", i}});
  std::vector<api::LoggedEvent> from_memory, from_store, odd;
  ASSERT_TRUE(log.subscribe(session_, "", 7, [&](const api::LoggedEvent& e) { from_memory.push_back(e); return true; }).ok());
  EXPECT_EQ(seqs_of(from_memory), (std::vector<int64_t>{8, 9, 10}));
  ASSERT_TRUE(log.subscribe(session_, "", 2, [&](const api::LoggedEvent& e) { from_store.push_back(e); return true; }).ok());
  EXPECT_EQ(seqs_of(from_store), (std::vector<int64_t>{3, 4, 5, 6, 7, 8, 9, 10}));
  ASSERT_TRUE(log.subscribe(session_, "r_odd", 0, [&](const api::LoggedEvent& e) { odd.push_back(e); return true; }).ok());
  EXPECT_EQ(seqs_of(odd), (std::vector<int64_t>{1, 3, 5, 7, 9}));
  log.publish(session_, "r_odd", "e", {});
  EXPECT_EQ(from_store.back().seq, 11);
  EXPECT_EQ(odd.back().seq, 11);
}

TEST_F(EventLogTest, ANewLogOverTheSameStoreContinues) {
  {
    api::EventLog log(*store_);
    for (int i = 0; i < 3; ++i) log.publish(session_, "r_1", "e", {{"i", i}});
  }  // the destructor saves what is queued
  auto stored = store_->list_server_events(session_, 0, 100);
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 3u);
  EXPECT_EQ((*stored)[2].seq, 3);
  EXPECT_EQ(nlohmann::json::parse((*stored)[2].data)["i"], 2);
  api::EventLog again(*store_);
  std::vector<api::LoggedEvent> got;
  ASSERT_TRUE(again.subscribe(session_, "", 1, [&](const api::LoggedEvent& e) { got.push_back(e); return true; }).ok());
  EXPECT_EQ(seqs_of(got), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(again.publish(session_, "r_1", "e", {}), 4);
}

TEST_F(EventLogTest, EventsOfADeletedSessionAreDropped) {
  api::EventLog log(*store_);
  log.publish(session_, "", "e", {});
  log.flush();
  ASSERT_TRUE(store_->delete_session(session_).ok());
  log.drop_session(session_);
  log.publish(session_, "", "late", {});
  log.flush();  // no error, nothing stored
  EXPECT_EQ(store_->list_server_events(session_, 0, 10)->size(), 0u);
}

}  // namespace
}  // namespace keel::testing
