// keel serve's run queue in the store, on both engines: runs held under leases, taken up when
// their holder lets go or stops renewing, never by two instances at once.
#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

#include "store_test_util.hpp"

namespace keel::testing {
namespace {

class RunQueueStoreTest : public StoreTest {
 protected:
  std::string accept(const std::string& session, const std::string& owner, const std::string& task = "t") {
    RunInfo info;
    info.session_id = session;
    info.task = task;
    auto id = store_->accept_server_run(info, Message::user(task), "{}", ServerLease{owner, 10000});
    EXPECT_TRUE(id.ok()) << id.status().to_string();
    return id.value_or("");
  }
  static std::vector<std::string> ids(const std::vector<ServerCheckpoint>& runs) {
    std::vector<std::string> out;
    for (const auto& c : runs) out.push_back(c.run_id);
    return out;
  }
};

TEST_P(RunQueueStoreTest, AHeldRunIsTakenOnlyAfterItsLeaseRunsOut) {
  std::string sid = new_session("t", "/ws");
  std::string run = accept(sid, "a");
  auto all = store_->list_server_checkpoints();
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].owner, "a");
  EXPECT_EQ((*all)[0].workspace, "/ws");
  EXPECT_EQ((*all)[0].lease_until_ms, clock_ + 10000);

  EXPECT_TRUE(store_->claim_server_runs("/ws", {"b", 10000}, 10)->empty());
  clock_ += 9000;
  auto renewed = store_->renew_server_leases({"a", 10000});
  ASSERT_TRUE(renewed.ok()) << renewed.status().to_string();
  EXPECT_EQ(*renewed, std::vector<std::string>{run});
  clock_ += 9000;  // 18 s after the start, 9 s after the renewal: still held
  EXPECT_TRUE(store_->claim_server_runs("/ws", {"b", 10000}, 10)->empty());
  auto stats = store_->server_queue("/ws");
  ASSERT_TRUE(stats.ok()) << stats.status().to_string();
  EXPECT_EQ(stats->held, 1);
  EXPECT_EQ(stats->unclaimed, 0);
  EXPECT_EQ(stats->instances, 1);

  clock_ += 2000;  // "a" stopped renewing
  stats = store_->server_queue("/ws");
  EXPECT_EQ(stats->held, 0);
  EXPECT_EQ(stats->unclaimed, 1);
  auto taken = store_->claim_server_runs("/ws", {"b", 10000}, 10);
  ASSERT_TRUE(taken.ok()) << taken.status().to_string();
  ASSERT_EQ(taken->size(), 1u);
  EXPECT_EQ((*taken)[0].run_id, run);
  EXPECT_EQ((*taken)[0].owner, "a");  // the holder before: its lease ran out
  // "a" comes back: the run is no longer its own.
  EXPECT_TRUE(store_->renew_server_leases({"a", 10000})->empty());
  EXPECT_EQ(*store_->renew_server_leases({"b", 10000}), std::vector<std::string>{run});
  EXPECT_TRUE(store_->claim_server_runs("/ws", {"c", 10000}, 10)->empty());
}

TEST_P(RunQueueStoreTest, ReleasedRunsAreTakenAtOnceOldestFirstAndOnlyInTheirWorkspace) {
  std::string sid = new_session("t", "/ws");
  std::string other = new_session("t", "/other");
  std::string first = accept(sid, "a");
  clock_ += 1;
  std::string second = accept(new_session("t", "/ws"), "a");
  clock_ += 1;
  std::string third = accept(new_session("t", "/ws"), "b");
  std::string elsewhere = accept(other, "a");
  KEEL_ASSERT_OK(store_->release_server_runs("/ws", "a"));
  auto taken = store_->claim_server_runs("/ws", {"c", 10000}, 1);
  ASSERT_TRUE(taken.ok()) << taken.status().to_string();
  EXPECT_EQ(ids(*taken), std::vector<std::string>{first});
  EXPECT_EQ((*taken)[0].owner, "");  // let go, not expired
  EXPECT_EQ(ids(*store_->claim_server_runs("/ws", {"c", 10000}, 10)), std::vector<std::string>{second});
  // "b"'s run and the other workspace's are still held.
  EXPECT_TRUE(store_->claim_server_runs("/ws", {"d", 10000}, 10)->empty());
  // An empty owner lets go of every run of the workspace (one process serving it alone).
  KEEL_ASSERT_OK(store_->release_server_runs("/ws", ""));
  EXPECT_EQ(ids(*store_->claim_server_runs("/ws", {"d", 10000}, 10)), (std::vector<std::string>{first, second, third}));
  EXPECT_EQ(*store_->renew_server_leases({"a", 10000}), std::vector<std::string>{elsewhere});
  // A checkpoint written again (the run parked) keeps its holder.
  ServerCheckpoint parked;
  parked.run_id = first;
  parked.session_id = sid;  // (first's)
  parked.waiting = "approval";
  KEEL_ASSERT_OK(store_->put_server_checkpoint(parked));
  auto d = store_->renew_server_leases({"d", 10000});
  EXPECT_EQ(d->size(), 3u);
  // Bad claims.
  EXPECT_EQ(store_->claim_server_runs("/ws", {"", 10000}, 1).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(store_->claim_server_runs("/ws", {"e", 0}, 1).status().code(), ErrorCode::kInvalidArgument);
}

// Instances claiming at the same moment take different runs, and between them every run.
TEST_P(RunQueueStoreTest, ConcurrentClaimsNeverTakeTheSameRunTwice) {
  std::set<std::string> accepted;
  for (int i = 0; i < 40; ++i) accepted.insert(accept(new_session("t", "/ws"), ""));
  std::vector<std::unique_ptr<Store>> instances;
  for (int i = 0; i < 4; ++i) {
    auto opened = open(options());
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    instances.push_back(std::move(opened).value());
  }
  std::vector<std::vector<std::string>> taken(instances.size());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (size_t i = 0; i < instances.size(); ++i) {
    threads.emplace_back([&, i] {
      for (;;) {
        auto got = instances[i]->claim_server_runs("/ws", {"i" + std::to_string(i), 10000}, 3);
        if (!got.ok()) {
          ++failures;
          return;
        }
        if (got->empty()) return;
        for (const auto& c : *got) taken[i].push_back(c.run_id);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  std::multiset<std::string> all;
  for (const auto& list : taken) all.insert(list.begin(), list.end());
  EXPECT_EQ(all.size(), accepted.size());
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()), accepted);
  for (size_t i = 0; i < instances.size(); ++i) {
    auto held = store_->renew_server_leases({"i" + std::to_string(i), 10000});
    std::vector<std::string> mine = taken[i];
    std::sort(mine.begin(), mine.end());
    EXPECT_EQ(*held, mine);
  }
}

// What a client asks of a run another instance holds waits for that instance, in order, once.
TEST_P(RunQueueStoreTest, ControlsWaitForTheRunsHolderAndAreTakenOnce) {
  std::string run = accept(new_session("t", "/ws"), "a");
  KEEL_ASSERT_OK(store_->send_server_control({0, run, "steer", R"({"content":"left"})"}));
  KEEL_ASSERT_OK(store_->send_server_control({0, run, "abort", "{}"}));
  EXPECT_EQ(store_->send_server_control({0, "r_0000000000000000", "abort", "{}"}).code(), ErrorCode::kNotFound);
  auto taken = store_->take_server_controls(run);
  ASSERT_TRUE(taken.ok()) << taken.status().to_string();
  ASSERT_EQ(taken->size(), 2u);
  EXPECT_EQ((*taken)[0].kind, "steer");
  EXPECT_EQ((*taken)[0].body, R"({"content":"left"})");
  EXPECT_EQ((*taken)[1].kind, "abort");
  EXPECT_TRUE(store_->take_server_controls(run)->empty());
}

KEEL_STORE_ENGINES(RunQueueStoreTest);

}  // namespace
}  // namespace keel::testing
