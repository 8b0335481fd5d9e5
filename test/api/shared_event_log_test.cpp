// The event log of several keel serve instances on one PostgreSQL database: the database numbers
// each session's events, and every instance's subscribers get every event once, in seq order,
// whichever instance published it (LISTEN/NOTIFY tells the others).
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "api/event_log.hpp"
#include "keel/store/postgres_store.hpp"
#include "support/postgres_server.hpp"

namespace keel::testing {
namespace {

struct Collected {
  std::mutex mu;
  std::vector<int64_t> seqs;
  std::vector<std::string> publishers;
  api::EventLog::Sink sink() {
    return [this](const api::LoggedEvent& e) {
      std::lock_guard lock(mu);
      seqs.push_back(e.seq);
      auto data = nlohmann::json::parse(e.frame.substr(e.frame.find("data: ") + 6), nullptr, false);
      publishers.push_back(data.value("by", ""));
      return true;
    };
  }
  // Waits up to 10 s for `n` events.
  std::vector<int64_t> wait_for(size_t n) {
    for (int i = 0; i < 1000; ++i) {
      {
        std::lock_guard lock(mu);
        if (seqs.size() >= n) return seqs;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::lock_guard lock(mu);
    return seqs;
  }
};

std::vector<int64_t> one_to(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t i = 1; i <= n; ++i) out.push_back(i);
  return out;
}

class SharedEventLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto schema = PostgresSchema::create();
    ASSERT_TRUE(schema.ok()) << schema.status().to_string();
    schema_.emplace(std::move(schema).value());
    for (int i = 0; i < 2; ++i) {
      PostgresStoreOptions o;
      o.url = schema_->url();
      o.pool_size = 2;
      auto store = open_postgres_store(o);
      ASSERT_TRUE(store.ok()) << store.status().to_string();
      stores_.push_back(std::move(store).value());
    }
    session_ = *stores_[0]->create_session({});
    api::EventLogOptions o;
    o.numbered_by_store = true;
    a_ = std::make_unique<api::EventLog>(*stores_[0], o);
    b_ = std::make_unique<api::EventLog>(*stores_[1], o);
  }
  void TearDown() override {
    a_.reset();
    b_.reset();
  }

  std::optional<PostgresSchema> schema_;
  std::vector<std::unique_ptr<Store>> stores_;
  std::string session_;
  std::unique_ptr<api::EventLog> a_, b_;
};

TEST_F(SharedEventLogTest, EveryInstancesSubscribersGetEveryEventOnceInOrder) {
  Collected on_a, on_b, b_run_x;
  ASSERT_TRUE(a_->subscribe(session_, "", 0, on_a.sink()).ok());
  ASSERT_TRUE(b_->subscribe(session_, "", 0, on_b.sink()).ok());
  ASSERT_TRUE(b_->subscribe(session_, "r_x", 0, b_run_x.sink()).ok());
  // Both instances publish to the session at once.
  std::thread from_a([&] {
    for (int i = 0; i < 60; ++i) a_->publish(session_, i % 3 == 0 ? "r_x" : "r_y", "e", {{"by", "a"}});
  });
  std::thread from_b([&] {
    for (int i = 0; i < 60; ++i) b_->publish(session_, "r_y", "e", {{"by", "b"}});
  });
  from_a.join();
  from_b.join();
  EXPECT_EQ(on_a.wait_for(120), one_to(120));
  EXPECT_EQ(on_b.wait_for(120), one_to(120));
  EXPECT_EQ(b_run_x.wait_for(20).size(), 20u);
  // Each instance's subscribers saw the other's events too.
  EXPECT_EQ(std::count(on_a.publishers.begin(), on_a.publishers.end(), "b"), 60);
  EXPECT_EQ(std::count(on_b.publishers.begin(), on_b.publishers.end(), "a"), 60);
  auto stored = stores_[0]->list_server_events(session_, 0, 1000);
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 120u);
  for (size_t i = 0; i < stored->size(); ++i) {
    EXPECT_EQ((*stored)[i].seq, static_cast<int64_t>(i + 1));
    EXPECT_EQ(nlohmann::json::parse((*stored)[i].data)["seq"], static_cast<int64_t>(i + 1));
  }
  auto last = b_->last_seq(session_);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(*last, 120);
}

// A client that reconnects to another instance with Last-Event-ID gets what it missed there, then
// what comes next, from whichever instance.
TEST_F(SharedEventLogTest, AStreamResumesOnAnotherInstanceFromItsLastEvent) {
  for (int i = 0; i < 5; ++i) a_->publish(session_, "r_1", "e", {{"by", "a"}});
  a_->flush();
  Collected resumed;
  ASSERT_TRUE(b_->subscribe(session_, "", 3, resumed.sink()).ok());
  EXPECT_EQ(resumed.wait_for(2), (std::vector<int64_t>{4, 5}));
  a_->publish(session_, "r_1", "e", {{"by", "a"}});
  b_->publish(session_, "r_1", "e", {{"by", "b"}});
  EXPECT_EQ(resumed.wait_for(4), (std::vector<int64_t>{4, 5, 6, 7}));
}

TEST_F(SharedEventLogTest, EventsOfADeletedSessionAreDroppedNotAnError) {
  a_->publish(session_, "", "e", {});
  a_->flush();
  ASSERT_TRUE(stores_[0]->delete_session(session_).ok());
  a_->publish(session_, "", "late", {});
  a_->flush();
  EXPECT_EQ(stores_[0]->list_server_events(session_, 0, 10)->size(), 0u);
}

}  // namespace
}  // namespace keel::testing
