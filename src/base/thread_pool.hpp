// tools/thread_pool.hpp — the fixed pool of worker threads that runs tool calls.
//
// Up to `threads` workers are started on demand, when tasks outnumber the idle workers, and then
// reused for every task; no thread is created per call, and a pool that is never used (an agent
// whose runs call no tools) starts none. The pool knows that some tasks get *abandoned*: a tool call that overran
// its timeout is given up by the executor, but its thread cannot be killed and stays busy until
// the tool returns. So that abandoned tasks never starve later work, abandon() grows the pool by
// one worker whenever fewer than `threads` workers are left that are not stuck in abandoned
// tasks, up to `max_threads` workers in all. Grown workers stay (idle) until shutdown; the total
// never exceeds `max_threads`. Once that cap is reached and every worker is stuck, saturated()
// says so and queued tasks wait until a stuck task returns; the executor fails such calls rather
// than wait forever.
//
// Shutdown (the destructor) discards queued tasks, lets running tasks finish and joins their
// workers. A worker whose abandoned task has still not returned after `shutdown_grace` is
// detached instead of joined: the task keeps running in the background (its stop token has been
// requested already) and its worker exits as soon as it returns. The pool's shared state is kept
// alive by such workers, so nothing they touch is freed under them. Tests never leave tasks
// that outlive the grace period.
//
// Thread-safety: all methods are safe from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace keel::detail {

class ThreadPool {
 public:
  using TaskId = uint64_t;

  struct Options {
    size_t threads = 4;        // workers kept (started on demand; at least 1)
    size_t max_threads = 12;   // cap including workers added for abandoned tasks (>= threads)
    std::chrono::milliseconds shutdown_grace{2000};  // wait for abandoned tasks at shutdown
  };

  explicit ThreadPool(Options options);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queues `task`; it runs on some worker. Tasks should not throw; anything thrown is swallowed.
  // Returns an id for abandon().
  TaskId submit(std::function<void()> task);

  // Gives up on task `id`: if it is still queued it is dropped and never runs; if it is running,
  // its worker stops counting toward capacity (and the pool grows when needed, see above).
  // No effect once the task has finished.
  void abandon(TaskId id);

  // Workers started so far (threads + those added for abandoned tasks).
  size_t thread_count() const;
  // Workers currently stuck in abandoned tasks.
  size_t abandoned_count() const;
  // True when every worker is stuck in an abandoned task and the pool may not grow.
  bool saturated() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace keel::detail
