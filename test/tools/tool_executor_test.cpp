#include "keel/tool_executor.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <thread>

namespace keel {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

int64_t ms_since(Clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - start).count();
}

// Sleeps for `d` or until `stop` is requested.
void sleep_or_stop(milliseconds d, std::stop_token stop) {
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock lock(m);
  cv.wait_for(lock, stop, d, [] { return false; });
}

ToolSpec spec_for(std::string name, bool concurrency_safe, int timeout_ms = 5000) {
  ToolSpec spec;
  spec.name = std::move(name);
  spec.description = "test";
  spec.concurrency_safe = concurrency_safe;
  spec.timeout_ms = timeout_ms;
  spec.timeout_floor_ms = 0;  // tests use short timeouts
  return spec;
}

// A tool that sleeps `ms` (from its arguments), polling the stop token unless told not to.
std::unique_ptr<Tool> sleeper(std::string name, bool safe, int timeout_ms, bool honor_stop = true,
                              std::function<void()> on_run = nullptr) {
  ToolSpec spec = spec_for(std::move(name), safe, timeout_ms);
  spec.parameters_schema = R"({"type":"object","properties":{"ms":{"type":"integer"},"tag":{"type":"integer"}},
                               "additionalProperties":false})";
  return make_tool(spec, [honor_stop, on_run](const nlohmann::json& args, const ToolContext& ctx) -> Result<std::string> {
    if (on_run) on_run();
    const milliseconds d(args.value("ms", 0));
    if (honor_stop) sleep_or_stop(d, ctx.stop);
    else std::this_thread::sleep_for(d);
    if (ctx.stop.stop_requested()) return Status::Cancelled("stopped");
    return "slept " + std::to_string(d.count()) + " tag " + std::to_string(args.value("tag", -1));
  });
}

ToolCall call(std::string id, std::string name, std::string args) {
  return ToolCall{std::move(id), std::move(name), std::move(args)};
}

ToolExecutorOptions opts(int threads = 4) {
  ToolExecutorOptions o;
  o.threads = threads;
  o.workspace_root = "/tmp";
  return o;
}

TEST(ToolExecutorTest, SchemaViolationIsAnErrorResultAndTheToolDoesNotRun) {
  ToolRegistry registry;
  std::atomic<int> runs{0};
  ToolSpec spec = spec_for("fs_read", true);
  spec.parameters_schema = R"({"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}},
                               "required":["path"],"additionalProperties":false})";
  ASSERT_TRUE(registry.add(make_tool(spec, [&](const nlohmann::json&, const ToolContext&) -> Result<std::string> {
    ++runs;
    return std::string("ran");
  })).ok());
  ToolExecutor executor(registry, opts());
  std::vector<ToolCall> calls = {call("c1", "fs_read", R"({"limit":"ten"})"),
                                 call("c2", "fs_read", R"({"path":"a","extra":1})")};
  auto results = executor.run_batch(calls, {}, {});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, ToolStatus::kError);
  EXPECT_EQ(results[0].content,
            "invalid arguments for fs_read: /path: missing required property; /limit: expected integer, got string");
  EXPECT_EQ(results[0].call_id, "c1");
  EXPECT_EQ(results[0].name, "fs_read");
  EXPECT_EQ(results[0].duration_ms, 0);
  EXPECT_EQ(results[1].status, ToolStatus::kError);
  EXPECT_EQ(results[1].content, "invalid arguments for fs_read: /extra: unknown property (allowed: limit, path)");
  EXPECT_EQ(runs.load(), 0);
}

TEST(ToolExecutorTest, ArgumentsMustBeAJsonObject) {
  ToolRegistry registry;
  ASSERT_TRUE(registry.add(sleeper("t", true, 1000)).ok());
  ToolExecutor executor(registry, opts());
  std::vector<ToolCall> calls = {call("1", "t", "[1,2]"), call("2", "t", "{\"ms\": "), call("3", "t", ""),
                                 call("4", "t", "  ")};
  auto results = executor.run_batch(calls, {}, {});
  EXPECT_EQ(results[0].status, ToolStatus::kError);
  EXPECT_EQ(results[0].content, "arguments for t are not a JSON object: got an array");
  EXPECT_EQ(results[1].status, ToolStatus::kError);
  EXPECT_EQ(results[1].content.rfind("arguments for t are not a JSON object: parse error", 0), 0u)
      << results[1].content;
  EXPECT_EQ(results[2].status, ToolStatus::kOk) << results[2].content;  // empty text means {}
  EXPECT_EQ(results[3].status, ToolStatus::kOk) << results[3].content;
}

TEST(ToolExecutorTest, UnknownToolListsTheAvailableOnes) {
  ToolRegistry registry;
  ASSERT_TRUE(registry.add(sleeper("alpha", true, 1000)).ok());
  ASSERT_TRUE(registry.add(sleeper("beta", false, 1000)).ok());
  ToolExecutor executor(registry, opts());
  std::vector<ToolCall> calls = {call("x", "gamma", "{}")};
  auto results = executor.run_batch(calls, {}, {});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, ToolStatus::kError);
  EXPECT_EQ(results[0].content, "unknown tool 'gamma'; available: alpha, beta");
}

TEST(ToolExecutorTest, TimedOutCallIsAbandonedWithoutWaiting) {
  ToolRegistry registry;
  ASSERT_TRUE(registry.add(sleeper("quick", true, 2000)).ok());
  ASSERT_TRUE(registry.add(sleeper("stuck", true, 150, /*honor_stop=*/false)).ok());
  ToolExecutor executor(registry, opts());
  std::vector<ToolCall> calls = {call("a", "quick", R"({"ms":20,"tag":0})"), call("b", "stuck", R"({"ms":900})"),
                                 call("c", "quick", R"({"ms":10,"tag":2})")};
  const auto start = Clock::now();
  auto results = executor.run_batch(calls, {}, {});
  const int64_t elapsed = ms_since(start);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, ToolStatus::kOk);
  EXPECT_EQ(results[0].content, "slept 20 tag 0");
  EXPECT_EQ(results[1].status, ToolStatus::kTimeout);
  EXPECT_EQ(results[1].content, "stuck timed out after 150 ms");
  EXPECT_GE(results[1].duration_ms, 140);
  EXPECT_EQ(results[2].status, ToolStatus::kOk);
  EXPECT_EQ(results[2].content, "slept 10 tag 2");
  EXPECT_EQ(results[1].call_id, "b");
  EXPECT_LT(elapsed, 600) << "the batch waited for the abandoned call";
  EXPECT_GE(elapsed, 140);
}

TEST(ToolExecutorTest, ConcurrencySafeCallsOverlap) {
  ToolRegistry registry;
  ASSERT_TRUE(registry.add(sleeper("nap", true, 2000)).ok());
  ToolExecutor executor(registry, opts(4));
  std::vector<ToolCall> calls = {call("1", "nap", R"({"ms":200})"), call("2", "nap", R"({"ms":200})"),
                                 call("3", "nap", R"({"ms":200})")};
  const auto start = Clock::now();
  auto results = executor.run_batch(calls, {}, {});
  const int64_t elapsed = ms_since(start);
  for (const auto& r : results) EXPECT_EQ(r.status, ToolStatus::kOk) << r.content;
  for (const auto& r : results) EXPECT_GE(r.duration_ms, 190);
  EXPECT_LT(elapsed, 500);
}

TEST(ToolExecutorTest, UnsafeCallsRunOneAtATimeInCallOrder) {
  ToolRegistry registry;
  std::mutex mu;
  std::vector<int> order;
  std::atomic<int> running{0};
  std::atomic<int> max_running{0};
  ToolSpec spec = spec_for("write", false, 2000);
  spec.parameters_schema = R"({"type":"object","properties":{"n":{"type":"integer"}}})";
  ASSERT_TRUE(registry.add(make_tool(spec, [&](const nlohmann::json& args, const ToolContext&) -> Result<std::string> {
    const int now = ++running;
    int seen = max_running.load();
    while (now > seen && !max_running.compare_exchange_weak(seen, now)) {
    }
    {
      std::lock_guard lock(mu);
      order.push_back(args["n"].get<int>());
    }
    std::this_thread::sleep_for(milliseconds(40));
    --running;
    return std::string("ok");
  })).ok());
  ToolExecutor executor(registry, opts(4));
  std::vector<ToolCall> calls;
  for (int i = 0; i < 4; ++i) calls.push_back(call(std::to_string(i), "write", "{\"n\":" + std::to_string(i) + "}"));
  const auto start = Clock::now();
  auto results = executor.run_batch(calls, {}, {});
  EXPECT_GE(ms_since(start), 150);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(max_running.load(), 1);
  for (const auto& r : results) EXPECT_EQ(r.status, ToolStatus::kOk);
}

TEST(ToolExecutorTest, UnsafeCallWaitsForTheParallelGroupBeforeIt) {
  ToolRegistry registry;
  std::mutex mu;
  std::vector<std::string> log;
  auto logger = [&](std::string what) {
    return [&, what] {
      std::lock_guard lock(mu);
      log.push_back(what);
    };
  };
  ASSERT_TRUE(registry.add(sleeper("read", true, 2000, true, logger("read"))).ok());
  ASSERT_TRUE(registry.add(sleeper("write", false, 2000, true, logger("write"))).ok());
  ToolExecutor executor(registry, opts(4));
  BatchCallbacks callbacks;
  callbacks.on_finish = [&](const ToolCall& c, const ToolResult&) { logger("done " + c.id)(); };
  std::vector<ToolCall> calls = {call("r1", "read", R"({"ms":80})"), call("r2", "read", R"({"ms":80})"),
                                 call("w", "write", R"({"ms":0})"), call("r3", "read", R"({"ms":0})")};
  auto results = executor.run_batch(calls, callbacks, {});
  for (const auto& r : results) EXPECT_EQ(r.status, ToolStatus::kOk);
  const auto pos = [&](const std::string& s) { return std::find(log.begin(), log.end(), s) - log.begin(); };
  EXPECT_LT(pos("done r1"), pos("write"));
  EXPECT_LT(pos("done r2"), pos("write"));
  EXPECT_LT(pos("done w"), pos("done r3"));
}

TEST(ToolExecutorTest, FailuresDoNotCancelOtherCalls) {
  ToolRegistry registry;
  ASSERT_TRUE(registry.add(make_tool(spec_for("fails", true), [](const nlohmann::json&, const ToolContext&)
                                         -> Result<std::string> { return Status::NotFound("no such thing: x.txt"); }))
                  .ok());
  ASSERT_TRUE(registry.add(make_tool(spec_for("throws", true), [](const nlohmann::json&, const ToolContext&)
                                         -> Result<std::string> { throw std::runtime_error("kaboom"); }))
                  .ok());
  ASSERT_TRUE(registry.add(make_tool(spec_for("throws_int", false), [](const nlohmann::json&, const ToolContext&)
                                         -> Result<std::string> { throw 42; }))
                  .ok());
  ASSERT_TRUE(registry.add(sleeper("nap", true, 2000)).ok());
  ToolExecutor executor(registry, opts());
  std::vector<ToolCall> calls = {call("1", "fails", ""), call("2", "nap", R"({"ms":50})"), call("3", "throws", ""),
                                 call("4", "throws_int", ""), call("5", "nap", R"({"ms":1})")};
  auto results = executor.run_batch(calls, {}, {});
  EXPECT_EQ(results[0].status, ToolStatus::kError);
  EXPECT_EQ(results[0].content, "no such thing: x.txt");
  EXPECT_EQ(results[1].status, ToolStatus::kOk);
  EXPECT_EQ(results[2].status, ToolStatus::kError);
  EXPECT_EQ(results[2].content, "tool throws failed: kaboom");
  EXPECT_EQ(results[3].status, ToolStatus::kError);
  EXPECT_EQ(results[3].content, "tool throws_int failed: unknown exception");
  EXPECT_EQ(results[4].status, ToolStatus::kOk);
}

TEST(ToolExecutorTest, StopCancelsRunningAndPendingCalls) {
  ToolRegistry registry;
  std::atomic<int> later_runs{0};
  ASSERT_TRUE(registry.add(sleeper("long", true, 5000)).ok());
  ASSERT_TRUE(registry.add(sleeper("later", false, 5000, true, [&] { ++later_runs; })).ok());
  ToolExecutor executor(registry, opts());
  std::stop_source stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(milliseconds(100));
    stop.request_stop();
  });
  std::vector<ToolCall> calls = {call("1", "long", R"({"ms":3000})"), call("2", "long", R"({"ms":3000})"),
                                 call("3", "later", R"({"ms":0})")};
  const auto start = Clock::now();
  auto results = executor.run_batch(calls, {}, stop.get_token());
  const int64_t elapsed = ms_since(start);
  stopper.join();
  EXPECT_LT(elapsed, 1000);
  EXPECT_EQ(results[0].status, ToolStatus::kCancelled);
  EXPECT_EQ(results[1].status, ToolStatus::kCancelled);
  EXPECT_GE(results[0].duration_ms, 80);
  EXPECT_EQ(results[2].status, ToolStatus::kCancelled);
  EXPECT_EQ(results[2].duration_ms, 0);
  EXPECT_EQ(results[2].content, "later was not run: the run was cancelled");
  EXPECT_EQ(later_runs.load(), 0);
}

TEST(ToolExecutorTest, AlreadyStoppedBatchRunsNothing) {
  ToolRegistry registry;
  std::atomic<int> runs{0};
  ASSERT_TRUE(registry.add(sleeper("t", true, 1000, true, [&] { ++runs; })).ok());
  ToolExecutor executor(registry, opts());
  std::stop_source stop;
  stop.request_stop();
  std::vector<ToolCall> calls = {call("1", "t", "{}"), call("2", "t", "{}")};
  auto results = executor.run_batch(calls, {}, stop.get_token());
  for (const auto& r : results) EXPECT_EQ(r.status, ToolStatus::kCancelled);
  EXPECT_EQ(runs.load(), 0);
}

TEST(ToolExecutorTest, PoolThreadsAreReusedAcrossBatches) {
  ToolRegistry registry;
  std::mutex mu;
  std::set<std::thread::id> ids;
  ASSERT_TRUE(registry.add(sleeper("t", true, 2000, true, [&] {
    std::lock_guard lock(mu);
    ids.insert(std::this_thread::get_id());
  })).ok());
  ToolExecutor executor(registry, opts(3));
  std::vector<ToolCall> calls;
  for (int i = 0; i < 6; ++i) calls.push_back(call(std::to_string(i), "t", R"({"ms":20})"));
  auto first = executor.run_batch(calls, {}, {});
  std::set<std::thread::id> after_first = ids;
  auto second = executor.run_batch(calls, {}, {});
  for (const auto& r : first) EXPECT_EQ(r.status, ToolStatus::kOk);
  for (const auto& r : second) EXPECT_EQ(r.status, ToolStatus::kOk);
  EXPECT_LE(ids.size(), 3u);
  EXPECT_EQ(ids, after_first);
  EXPECT_EQ(ids.count(std::this_thread::get_id()), 0u) << "tools must run on pool threads";
}

TEST(ToolExecutorTest, AbandonedCallsDoNotStarveLaterBatches) {
  ToolRegistry registry;
  ASSERT_TRUE(registry.add(sleeper("stuck", true, 100, /*honor_stop=*/false)).ok());
  ASSERT_TRUE(registry.add(sleeper("quick", true, 2000)).ok());
  ToolExecutor executor(registry, opts(1));  // a single worker, soon stuck
  std::vector<ToolCall> stuck = {call("s", "stuck", R"({"ms":700})")};
  EXPECT_EQ(executor.run_batch(stuck, {}, {})[0].status, ToolStatus::kTimeout);
  std::vector<ToolCall> quick = {call("q", "quick", R"({"ms":1})")};
  const auto start = Clock::now();
  auto results = executor.run_batch(quick, {}, {});
  EXPECT_EQ(results[0].status, ToolStatus::kOk) << results[0].content;
  EXPECT_LT(ms_since(start), 450) << "the quick call waited for the stuck worker";
}

TEST(ToolExecutorTest, SaturatedPoolFailsCallsThatCannotStart) {
  ToolRegistry registry;
  ASSERT_TRUE(registry.add(sleeper("stuck", true, 100, /*honor_stop=*/false)).ok());
  ASSERT_TRUE(registry.add(sleeper("quick", true, 150)).ok());
  ToolExecutorOptions o = opts(1);
  o.max_threads = 1;  // no growth allowed
  ToolExecutor executor(registry, o);
  std::vector<ToolCall> stuck = {call("s", "stuck", R"({"ms":600})")};
  EXPECT_EQ(executor.run_batch(stuck, {}, {})[0].status, ToolStatus::kTimeout);
  std::vector<ToolCall> quick = {call("q", "quick", R"({"ms":1})")};
  const auto start = Clock::now();
  auto results = executor.run_batch(quick, {}, {});
  EXPECT_LT(ms_since(start), 450);
  EXPECT_EQ(results[0].status, ToolStatus::kTimeout);
  EXPECT_NE(results[0].content.find("could not start"), std::string::npos) << results[0].content;
}

TEST(ToolExecutorTest, CallbacksFireOncePerCallOnTheCallingThread) {
  ToolRegistry registry;
  ASSERT_TRUE(registry.add(sleeper("t", true, 2000)).ok());
  ToolExecutor executor(registry, opts());
  std::vector<std::string> events;  // no lock: callbacks run on this thread, one at a time
  const auto me = std::this_thread::get_id();
  bool wrong_thread = false;
  BatchCallbacks callbacks;
  callbacks.on_start = [&](const ToolCall& c) {
    wrong_thread |= std::this_thread::get_id() != me;
    events.push_back("start " + c.id);
  };
  callbacks.on_finish = [&](const ToolCall& c, const ToolResult& r) {
    wrong_thread |= std::this_thread::get_id() != me;
    events.push_back("finish " + c.id + " " + std::string(tool_status_name(r.status)));
  };
  std::vector<ToolCall> calls = {call("a", "t", R"({"ms":30})"), call("b", "nope", "{}"), call("c", "t", R"({"ms":1})")};
  auto results = executor.run_batch(calls, callbacks, {});
  EXPECT_FALSE(wrong_thread);
  EXPECT_EQ(std::count(events.begin(), events.end(), "start a"), 1);
  EXPECT_EQ(std::count(events.begin(), events.end(), "finish a ok"), 1);
  EXPECT_EQ(std::count(events.begin(), events.end(), "start b"), 0);
  EXPECT_EQ(std::count(events.begin(), events.end(), "finish b error"), 1);
  EXPECT_EQ(std::count(events.begin(), events.end(), "finish c ok"), 1);
  const auto pos = [&](const std::string& s) { return std::find(events.begin(), events.end(), s) - events.begin(); };
  EXPECT_LT(pos("start a"), pos("finish a ok"));
  EXPECT_LT(pos("start c"), pos("finish c ok"));
}

TEST(ToolExecutorTest, OutputIsMadeValidUtf8) {
  ToolRegistry registry;
  ASSERT_TRUE(registry.add(make_tool(spec_for("bytes", true), [](const nlohmann::json&, const ToolContext&)
                                         -> Result<std::string> { return std::string("ok \xff\xfe end"); }))
                  .ok());
  ToolExecutor executor(registry, opts());
  std::vector<ToolCall> calls = {call("1", "bytes", "{}")};
  auto results = executor.run_batch(calls, {}, {});
  EXPECT_EQ(results[0].content, "ok \xEF\xBF\xBD\xEF\xBF\xBD end");
  EXPECT_NO_THROW((void)nlohmann::json(results[0].content).dump());
}

// A tool that records the thread it ran on and sleeps `ms` from its arguments.
std::unique_ptr<Tool> thread_noting(std::string name, bool bounded, bool read_only, bool safe,
                                    std::vector<std::thread::id>* threads, std::mutex* mu) {
  ToolSpec spec = spec_for(std::move(name), safe);
  spec.read_only = read_only;
  spec.bounded = bounded;
  spec.parameters_schema = R"({"type":"object","properties":{"ms":{"type":"integer"}}})";
  return make_tool(spec, [threads, mu](const nlohmann::json& args, const ToolContext&) -> Result<std::string> {
    {
      std::lock_guard lock(*mu);
      threads->push_back(std::this_thread::get_id());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(args.value("ms", 0)));
    return std::string("ok");
  });
}

class InlineToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(registry_.add(thread_noting("quick", true, true, true, &threads_, &mu_)).ok());
    ASSERT_TRUE(registry_.add(thread_noting("quick_writer", true, false, false, &threads_, &mu_)).ok());
    ASSERT_TRUE(registry_.add(thread_noting("plain", false, true, true, &threads_, &mu_)).ok());
  }
  std::vector<std::thread::id> run(ToolExecutor& executor, std::vector<ToolCall> calls, int* starts = nullptr) {
    threads_.clear();
    BatchCallbacks cb;
    cb.on_start = [starts](const ToolCall&) {
      if (starts != nullptr) ++*starts;
    };
    std::vector<ToolResult> results = executor.run_batch(calls, cb, std::stop_token{}, ToolRunScope{});
    for (const ToolResult& r : results) EXPECT_EQ(r.status, ToolStatus::kOk) << r.content;
    return threads_;
  }
  ToolRegistry registry_;
  std::vector<std::thread::id> threads_;
  std::mutex mu_;
};

// A bounded read-only call alone in its group runs on the caller's thread; everything else
// (not bounded, not read-only, or beside other calls) runs on a worker.
TEST_F(InlineToolsTest, ABoundedReadOnlyCallAloneRunsOnTheCallersThread) {
  ToolExecutor executor(registry_, ToolExecutorOptions{});
  const std::thread::id here = std::this_thread::get_id();
  int starts = 0;
  std::vector<std::thread::id> t = run(executor, {call("1", "quick", "{}")}, &starts);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0], here);
  EXPECT_EQ(starts, 1);  // callbacks fire as for any call
  t = run(executor, {call("2", "plain", "{}")});
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NE(t[0], here);
  t = run(executor, {call("3", "quick_writer", "{}")});
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NE(t[0], here);
  t = run(executor, {call("4", "quick", "{}"), call("5", "quick", "{}")});
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NE(t[0], here);
  EXPECT_NE(t[1], here);
}

// A bounded tool that overruns the inline budget once is sent to the workers from then on.
TEST_F(InlineToolsTest, ABoundedToolThatOverrunsGoesBackToTheWorkers) {
  ToolExecutor executor(registry_, ToolExecutorOptions{});
  const std::thread::id here = std::this_thread::get_id();
  std::vector<std::thread::id> t = run(executor, {call("1", "quick", R"({"ms":30})")});
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0], here);
  t = run(executor, {call("2", "quick", "{}")});
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NE(t[0], here);
}

}  // namespace
}  // namespace keel
