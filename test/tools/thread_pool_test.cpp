#include "base/thread_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

namespace keel::detail {
namespace {

using std::chrono::milliseconds;

ThreadPool::Options options(size_t threads, size_t max_threads, int grace_ms = 2000) {
  ThreadPool::Options o;
  o.threads = threads;
  o.max_threads = max_threads;
  o.shutdown_grace = milliseconds(grace_ms);
  return o;
}

TEST(ThreadPoolTest, RunsTasksOnAFixedSetOfThreads) {
  // Workers start on demand, so quick tasks may share fewer than three threads: never more.
  ThreadPool pool(options(3, 8));
  std::mutex mu;
  std::set<std::thread::id> ids;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::future<void>> done;
    for (int i = 0; i < 10; ++i) {
      auto p = std::make_shared<std::promise<void>>();
      done.push_back(p->get_future());
      pool.submit([&, p] {
        {
          std::lock_guard lock(mu);
          ids.insert(std::this_thread::get_id());
        }
        p->set_value();
      });
    }
    for (auto& f : done) f.wait();
  }
  EXPECT_GE(ids.size(), 1u);
  EXPECT_LE(ids.size(), 3u);
  EXPECT_LE(pool.thread_count(), 3u);
}

TEST(ThreadPoolTest, BusyTasksGrowThePoolToItsSizeAndNoFurther) {
  ThreadPool pool(options(3, 8));
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> started{0};
  std::vector<std::future<void>> done;
  for (int i = 0; i < 5; ++i) {
    auto p = std::make_shared<std::promise<void>>();
    done.push_back(p->get_future());
    pool.submit([&started, released, p] {
      ++started;
      released.wait();
      p->set_value();
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (started.load() < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(started.load(), 3);  // the other two wait in the queue
  EXPECT_EQ(pool.thread_count(), 3u);
  release.set_value();
  for (auto& f : done) f.wait();
  EXPECT_EQ(started.load(), 5);
  EXPECT_EQ(pool.thread_count(), 3u);
}

TEST(ThreadPoolTest, AbandonedTaskIsReplacedUpToTheCap) {
  ThreadPool pool(options(1, 2));
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  const auto stuck = pool.submit([&started, released] {
    started.set_value();
    released.wait();
  });
  started.get_future().wait();
  pool.abandon(stuck);
  EXPECT_EQ(pool.thread_count(), 2u);
  EXPECT_EQ(pool.abandoned_count(), 1u);
  EXPECT_FALSE(pool.saturated());

  // The replacement worker runs new work while the first one is stuck.
  std::promise<void> ran;
  pool.submit([&] { ran.set_value(); });
  EXPECT_EQ(ran.get_future().wait_for(milliseconds(1000)), std::future_status::ready);

  // A second stuck task reaches the cap: no more growth, the pool is saturated.
  std::promise<void> started2;
  const auto stuck2 = pool.submit([&started2, released] {
    started2.set_value();
    released.wait();
  });
  started2.get_future().wait();
  pool.abandon(stuck2);
  EXPECT_EQ(pool.thread_count(), 2u);
  EXPECT_TRUE(pool.saturated());

  release.set_value();
  for (int i = 0; i < 200 && pool.abandoned_count() > 0; ++i) std::this_thread::sleep_for(milliseconds(5));
  EXPECT_EQ(pool.abandoned_count(), 0u);
  EXPECT_FALSE(pool.saturated());
}

TEST(ThreadPoolTest, AbandonedQueuedTaskNeverRuns) {
  ThreadPool pool(options(1, 1));
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  pool.submit([released] { released.wait(); });
  std::atomic<bool> ran{false};
  const auto queued = pool.submit([&] { ran = true; });
  pool.abandon(queued);
  release.set_value();
  std::promise<void> after;
  pool.submit([&] { after.set_value(); });
  after.get_future().wait();
  EXPECT_FALSE(ran.load());
}

TEST(ThreadPoolTest, ShutdownDetachesWorkersStuckPastTheGracePeriod) {
  auto finished = std::make_shared<std::atomic<bool>>(false);
  const auto start = std::chrono::steady_clock::now();
  {
    ThreadPool pool(options(1, 2, /*grace_ms=*/100));
    std::promise<void> started;
    const auto id = pool.submit([&started, finished] {
      started.set_value();
      std::this_thread::sleep_for(milliseconds(400));
      *finished = true;
    });
    started.get_future().wait();
    pool.abandon(id);
  }
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_LT(waited, milliseconds(350)) << "shutdown waited for the stuck task";
  // Let the detached worker finish so nothing outlives the test.
  for (int i = 0; i < 200 && !*finished; ++i) std::this_thread::sleep_for(milliseconds(5));
  EXPECT_TRUE(*finished);
  std::this_thread::sleep_for(milliseconds(20));
}

TEST(ThreadPoolTest, ShutdownWaitsForTasksThatAreNotAbandoned) {
  std::atomic<bool> finished{false};
  {
    ThreadPool pool(options(1, 1, /*grace_ms=*/0));
    std::promise<void> started;
    pool.submit([&] {
      started.set_value();
      std::this_thread::sleep_for(milliseconds(100));
      finished = true;
    });
    started.get_future().wait();
  }
  EXPECT_TRUE(finished.load());
}

TEST(ThreadPoolTest, ThrowingTaskDoesNotKillItsWorker) {
  ThreadPool pool(options(1, 1));
  pool.submit([] { throw std::runtime_error("boom"); });
  std::promise<void> ran;
  pool.submit([&] { ran.set_value(); });
  EXPECT_EQ(ran.get_future().wait_for(milliseconds(1000)), std::future_status::ready);
}

}  // namespace
}  // namespace keel::detail
