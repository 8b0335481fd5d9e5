#include "keel/tool_executor.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <thread>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>

#include "base/clock.hpp"
#include "tools/call_preparation.hpp"
#include "core/text/utf8_text.hpp"
#include "base/thread_pool.hpp"

namespace keel {
namespace {

using Clock = std::chrono::steady_clock;
using detail::sanitize_utf8;

int64_t millis_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count();
}

// Wakes the executor thread; thread-safe through its mutex. Shared with every task of the batch so a task that finishes after
// its call was abandoned (and after run_batch() returned) still has something valid to signal.
struct BatchSync {
  std::mutex mu;
  std::condition_variable cv;
  uint64_t generation = 0;  // bumped on every task phase change and on stop
};

enum class Phase { kQueued, kRunning, kFinished, kDropped };

// Model calls a tool made itself (a sub-agent's), reported through ToolContext::add_model_usage,
// possibly after the call was given up on; read when its result is made.
struct UsageTally {
  std::mutex mu;
  Usage total;
};

// One call as seen by the worker running it. Everything but the guarded fields is set before the
// task is submitted and never changed; the guarded ones are only touched under sync->mu.
struct CallState {
  std::shared_ptr<BatchSync> sync;
  Tool* tool = nullptr;
  nlohmann::json args;
  ToolContext ctx;
  std::shared_ptr<UsageTally> usage = std::make_shared<UsageTally>();
  std::stop_source stop;
  // Guarded by sync->mu:
  Phase phase = Phase::kQueued;
  Clock::time_point started_at;
  Clock::time_point finished_at;
  ToolStatus status = ToolStatus::kOk;
  std::string content;
};

// The body of a pool task: runs the tool unless the call was dropped first, catching everything.
void run_call(const std::shared_ptr<CallState>& s) {
  {
    std::lock_guard lock(s->sync->mu);
    if (s->phase != Phase::kQueued) return;
    s->phase = Phase::kRunning;
    s->started_at = Clock::now();
    ++s->sync->generation;
  }
  s->sync->cv.notify_all();

  const std::string& name = s->tool->spec().name;
  ToolStatus status = ToolStatus::kError;
  std::string content;
  try {
    Result<std::string> r = s->tool->execute(s->args, s->ctx);
    if (r.ok()) {
      status = ToolStatus::kOk;
      content = sanitize_utf8(r.value());
    } else {
      content = sanitize_utf8(r.status().message());
      if (content.empty()) content = "tool " + name + " failed (" + std::string(error_code_name(r.status().code())) + ")";
    }
  } catch (const std::exception& e) {
    content = "tool " + name + " failed: " + sanitize_utf8(e.what());
  } catch (...) {
    content = "tool " + name + " failed: unknown exception";
  }

  {
    std::lock_guard lock(s->sync->mu);
    s->phase = Phase::kFinished;
    s->finished_at = Clock::now();
    s->status = status;
    s->content = std::move(content);
    ++s->sync->generation;
  }
  s->sync->cv.notify_all();
}

// The executor thread's bookkeeping for one call of the batch; only that thread touches it.
struct Slot {
  detail::PreparedCall prepared;
  std::shared_ptr<CallState> state;   // set once submitted
  detail::ThreadPool::TaskId task = 0;
  int timeout_ms = 0;
  Clock::time_point start_deadline;   // when a still-queued call is checked for starvation
  bool start_reported = false;
  bool done = false;
};

enum class EventKind { kStart, kFinish };
struct Event {
  EventKind kind;
  size_t index;
};

}  // namespace

// The pool and the scheduling of one batch at a time. run_batch() is called from one thread at a
// time (see the header); the pool it owns is thread-safe.
class ToolExecutor::Impl {
 public:
  Impl(const ToolRegistry& registry, ToolExecutorOptions options)
      : registry_(registry), options_(std::move(options)), pool_(pool_options(options_)) {}

  std::vector<ToolResult> run_batch(std::span<const ToolCall> calls, const BatchCallbacks& callbacks,
                                    std::stop_token stop, const ToolRunScope& scope);

 private:
  static detail::ThreadPool::Options pool_options(const ToolExecutorOptions& o) {
    detail::ThreadPool::Options p;
    p.threads = static_cast<size_t>(std::max(o.threads, 1));
    p.max_threads = static_cast<size_t>(std::max(o.max_threads, o.threads));
    p.shutdown_grace = std::chrono::milliseconds(std::max(o.shutdown_grace_ms, 0));
    return p;
  }

  // State of the batch being run; valid during run_batch() only.
  struct Batch {
    std::span<const ToolCall> calls;
    const BatchCallbacks* callbacks;
    const ToolRunScope* scope;
    std::stop_token stop;
    std::shared_ptr<BatchSync> sync;
    std::vector<Slot> slots;
    std::vector<ToolResult> results;
  };

  // Starts call i on a worker, or runs it here when `may_inline` and runs_inline().
  void submit(Batch& b, size_t i, bool may_inline);
  // Whether call i may run on the executor's thread (see ToolSpec::bounded).
  bool runs_inline(const Batch& b, size_t i);
  void run_group(Batch& b, const std::vector<size_t>& group);
  // Looks at every unfinished call of `group`; appends callbacks to fire. Requires sync->mu.
  void poll_locked(Batch& b, const std::vector<size_t>& group, std::vector<Event>& events,
                   Clock::time_point& next_wake);
  // Records call i's final result and queues its on_finish.
  // Redacts secrets from `content` (ToolExecutorOptions::redactor) before anything sees it.
  void resolve(Batch& b, size_t i, ToolStatus status, std::string content, int64_t duration_ms,
                      std::vector<Event>& events);
  static void fire(Batch& b, const Event& e);

  const ToolRegistry& registry_;
  ToolExecutorOptions options_;
  detail::ThreadPool pool_;
  std::mutex inline_mu_;
  std::set<std::string, std::less<>> too_slow_inline_;  // bounded tools that overran kInlineBudget
};

// A bounded call that takes longer than this on the executor's thread is not run there again.
constexpr auto kInlineBudget = std::chrono::milliseconds(5);

bool ToolExecutor::Impl::runs_inline(const Batch& b, size_t i) {
  const ToolSpec& spec = b.slots[i].prepared.tool->spec();
  if (!spec.bounded || !spec.read_only) return false;
  std::lock_guard lock(inline_mu_);
  return too_slow_inline_.count(spec.name) == 0;
}

void ToolExecutor::Impl::fire(Batch& b, const Event& e) {
  // A throwing host callback must not break the batch or escape run_batch().
  try {
    if (e.kind == EventKind::kStart) {
      if (b.callbacks->on_start) b.callbacks->on_start(b.calls[e.index]);
    } else if (b.callbacks->on_finish) {
      b.callbacks->on_finish(b.calls[e.index], b.results[e.index]);
    }
  } catch (...) {
  }
}

void ToolExecutor::Impl::submit(Batch& b, size_t i, bool may_inline) {
  Slot& slot = b.slots[i];
  auto state = std::make_shared<CallState>();
  state->sync = b.sync;
  state->tool = slot.prepared.tool;
  state->args = std::move(slot.prepared.args);
  state->ctx.stop = state->stop.get_token();
  state->ctx.workspace_root = options_.workspace_root;
  state->ctx.call_id = b.calls[i].id;
  state->ctx.session_id = b.scope->session_id;
  state->ctx.run_id = b.scope->run_id;
  state->ctx.depth = b.scope->depth;
  state->ctx.budget_left = b.scope->budget_left;
  state->ctx.add_model_usage = [tally = state->usage](const Usage& u) {
    std::lock_guard lock(tally->mu);
    tally->total += u;
  };
  slot.timeout_ms = state->tool->spec().effective_timeout_ms();
  slot.start_deadline = detail::deadline_after_ms(slot.timeout_ms);
  slot.state = state;
  if (!may_inline || !runs_inline(b, i)) {
    slot.task = pool_.submit([state] { run_call(state); });
    return;
  }
  const auto started = Clock::now();
  run_call(state);
  if (Clock::now() - started > kInlineBudget) {
    std::lock_guard lock(inline_mu_);
    too_slow_inline_.insert(state->tool->spec().name);
  }
}

void ToolExecutor::Impl::resolve(Batch& b, size_t i, ToolStatus status, std::string content,
                                        int64_t duration_ms, std::vector<Event>& events) {
  if (options_.redactor) options_.redactor->redact_in_place(content);
  ToolResult& r = b.results[i];
  r.status = status;
  r.content = std::move(content);
  r.duration_ms = duration_ms;
  if (const std::shared_ptr<CallState>& state = b.slots[i].state) {
    std::lock_guard lock(state->usage->mu);
    r.model_usage = state->usage->total;
  }
  b.slots[i].done = true;
  events.push_back({EventKind::kFinish, i});
}

void ToolExecutor::Impl::poll_locked(Batch& b, const std::vector<size_t>& group, std::vector<Event>& events,
                                     Clock::time_point& next_wake) {
  const Clock::time_point now = Clock::now();
  const bool stopping = b.stop.stop_requested();
  for (size_t i : group) {
    Slot& slot = b.slots[i];
    if (slot.done) continue;
    CallState& s = *slot.state;
    const std::string& name = b.calls[i].name;
    if (s.phase != Phase::kQueued && !slot.start_reported) {
      slot.start_reported = true;
      events.push_back({EventKind::kStart, i});
    }
    if (s.phase == Phase::kFinished) {
      resolve(b, i, s.status, std::move(s.content), millis_between(s.started_at, s.finished_at), events);
      continue;
    }
    if (stopping) {
      if (s.phase == Phase::kQueued) {
        s.phase = Phase::kDropped;
        pool_.abandon(slot.task);  // removes it from the queue
        resolve(b, i, ToolStatus::kCancelled, name + " was not run: the run was cancelled", 0, events);
      } else {
        s.stop.request_stop();
        pool_.abandon(slot.task);
        resolve(b, i, ToolStatus::kCancelled, name + " was cancelled while running: the run was stopped",
                       millis_between(s.started_at, now), events);
      }
      continue;
    }
    if (s.phase == Phase::kRunning) {
      const Clock::time_point deadline = s.started_at + std::chrono::milliseconds(slot.timeout_ms);
      if (now >= deadline) {
        s.stop.request_stop();
        pool_.abandon(slot.task);  // do not wait: the worker is replaced if needed
        resolve(b, i, ToolStatus::kTimeout,
                       name + " timed out after " + std::to_string(slot.timeout_ms) + " ms",
                       millis_between(s.started_at, now), events);
      } else {
        next_wake = std::min(next_wake, deadline);
      }
      continue;
    }
    // Still queued. Normally it waits for calls ahead of it, which all end within their own
    // timeouts; but when every worker is stuck in an abandoned call it could wait forever.
    if (now >= slot.start_deadline) {
      if (pool_.saturated()) {
        s.phase = Phase::kDropped;
        pool_.abandon(slot.task);
        resolve(b, i, ToolStatus::kTimeout,
                       name + " could not start within " + std::to_string(slot.timeout_ms) + " ms: all " +
                           std::to_string(pool_.thread_count()) +
                           " worker threads are still busy with earlier calls that timed out",
                       0, events);
        continue;
      }
      slot.start_deadline = now + std::chrono::milliseconds(slot.timeout_ms);
    }
    next_wake = std::min(next_wake, slot.start_deadline);
  }
}

// Most tool calls end within microseconds. Watching for that briefly before sleeping on the
// condition variable saves a thread wake-up, which costs tens of microseconds on virtual machines
// (measured ~45 us one way here) and would dominate a step of the loop.
constexpr auto kSpinWait = std::chrono::microseconds(150);

template <class Pred>
bool spin_briefly(BatchSync& sync, const Pred& changed) {
  const auto until = Clock::now() + kSpinWait;
  while (Clock::now() < until) {
    {
      std::lock_guard lock(sync.mu);
      if (changed()) return true;
    }
    std::this_thread::yield();
  }
  return false;
}

void ToolExecutor::Impl::run_group(Batch& b, const std::vector<size_t>& group) {
  // A call alone in its group may run inline (submit() decides); in a parallel group every call
  // goes to the workers, so that one call never delays the start of the others.
  for (size_t i : group) submit(b, i, group.size() == 1);
  for (;;) {
    std::vector<Event> events;
    Clock::time_point next_wake = Clock::time_point::max();
    uint64_t seen = 0;
    bool all_done = true;
    {
      std::lock_guard lock(b.sync->mu);
      poll_locked(b, group, events, next_wake);
      seen = b.sync->generation;
      for (size_t i : group) all_done = all_done && b.slots[i].done;
    }
    for (const Event& e : events) fire(b, e);
    if (all_done) return;
    if (!events.empty()) continue;  // state may have moved while the callbacks ran
    const auto changed = [&] { return b.sync->generation != seen; };
    if (spin_briefly(*b.sync, changed)) continue;
    std::unique_lock lock(b.sync->mu);
    if (next_wake == Clock::time_point::max()) b.sync->cv.wait(lock, changed);
    else b.sync->cv.wait_until(lock, next_wake, changed);
  }
}

std::vector<ToolResult> ToolExecutor::Impl::run_batch(std::span<const ToolCall> calls,
                                                      const BatchCallbacks& callbacks, std::stop_token stop,
                                                      const ToolRunScope& scope) {
  Batch b{calls, &callbacks, &scope, stop, std::make_shared<BatchSync>(), {}, {}};
  b.slots.resize(calls.size());
  b.results.resize(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    b.results[i].call_id = calls[i].id;
    b.results[i].name = sanitize_utf8(calls[i].name);
    b.slots[i].prepared = detail::prepare_call(registry_, calls[i]);
  }
  // A stop request only needs to wake the executor thread; poll_locked() does the rest.
  std::shared_ptr<BatchSync> sync = b.sync;
  std::stop_callback wake_on_stop(stop, [sync] {
    {
      std::lock_guard lock(sync->mu);
      ++sync->generation;
    }
    sync->cv.notify_all();
  });

  size_t i = 0;
  while (i < calls.size()) {
    // Collect the next group: one non-concurrency-safe call, or a run of concurrency-safe ones.
    // Calls that failed preparation never run; they are answered as the scan reaches them.
    std::vector<size_t> group;
    bool parallel = false;
    for (; i < calls.size(); ++i) {
      Slot& slot = b.slots[i];
      if (!slot.prepared.ok()) {
        std::vector<Event> events;
        resolve(b, i, ToolStatus::kError, std::move(slot.prepared.error), 0, events);
        fire(b, events.front());
        continue;
      }
      const bool safe = slot.prepared.tool->spec().concurrency_safe;
      if (group.empty()) {
        group.push_back(i);
        parallel = safe;
        if (!safe) {
          ++i;
          break;
        }
      } else if (parallel && safe) {
        group.push_back(i);
      } else {
        break;
      }
    }
    if (group.empty()) break;
    if (stop.stop_requested()) {
      for (size_t k : group) {
        std::vector<Event> events;
        resolve(b, k, ToolStatus::kCancelled, calls[k].name + " was not run: the run was cancelled", 0,
                       events);
        fire(b, events.front());
      }
      continue;
    }
    run_group(b, group);
  }
  return std::move(b.results);
}

ToolExecutor::ToolExecutor(const ToolRegistry& registry, ToolExecutorOptions options)
    : impl_(std::make_unique<Impl>(registry, std::move(options))) {}

ToolExecutor::~ToolExecutor() = default;

std::vector<ToolResult> ToolExecutor::run_batch(std::span<const ToolCall> calls, const BatchCallbacks& callbacks,
                                                std::stop_token stop, const ToolRunScope& scope) {
  try {
    return impl_->run_batch(calls, callbacks, std::move(stop), scope);
  } catch (const std::exception& e) {
    // Only resource exhaustion (bad_alloc, no threads) gets here; answer every call anyway.
    std::vector<ToolResult> out(calls.size());
    for (size_t i = 0; i < calls.size(); ++i) {
      out[i].call_id = calls[i].id;
      out[i].name = sanitize_utf8(calls[i].name);
      out[i].status = ToolStatus::kError;
      out[i].content = std::string("the tool executor failed: ") + e.what();
    }
    return out;
  }
}

}  // namespace keel
