#include "base/thread_pool.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace keel::detail {

namespace {

struct QueuedTask {
  ThreadPool::TaskId id;
  std::function<void()> fn;
};

}  // namespace

// Everything the workers share, guarded by `mu`. Owned jointly by the pool and by every worker thread, so a
// worker detached at shutdown can still finish safely.
struct ThreadPool::State {
  struct Worker {
    std::thread thread;
    TaskId current = 0;      // task being run; 0 when idle
    bool abandoned = false;  // `current` was abandoned
    bool exited = false;     // the thread function returned (or is about to)
  };

  Options options;
  mutable std::mutex mu;
  std::condition_variable work_cv;    // workers wait for tasks or shutdown
  std::condition_variable exit_cv;    // shutdown waits for workers to exit
  std::deque<QueuedTask> queue;
  std::vector<std::unique_ptr<Worker>> workers;  // stable addresses
  TaskId next_id = 1;
  size_t abandoned_running = 0;
  size_t idle = 0;  // workers waiting for a task
  bool stopping = false;

  // Starts one more worker; requires `mu` held. Returns false if the OS refused a thread.
  bool spawn_locked(const std::shared_ptr<State>& self) {
    auto worker = std::make_unique<Worker>();
    Worker* w = worker.get();
    try {
      worker->thread = std::thread([self, w] { self->run(w); });
    } catch (const std::system_error&) {
      return false;
    }
    workers.push_back(std::move(worker));
    return true;
  }

  // Keeps `options.threads` workers free of abandoned tasks while under the cap.
  void grow_locked(const std::shared_ptr<State>& self) {
    while (!stopping && workers.size() - abandoned_running < options.threads &&
           workers.size() < options.max_threads) {
      if (!spawn_locked(self)) break;
    }
  }

  void run(Worker* w) {
    std::unique_lock lock(mu);
    for (;;) {
      ++idle;
      work_cv.wait(lock, [&] { return stopping || !queue.empty(); });
      --idle;
      if (stopping) break;
      QueuedTask task = std::move(queue.front());
      queue.pop_front();
      w->current = task.id;
      lock.unlock();
      try {
        task.fn();
      } catch (...) {
        // A task must not take its worker down; the executor's tasks catch everything anyway.
      }
      task.fn = nullptr;  // release captured state outside the lock
      lock.lock();
      if (w->abandoned) {
        w->abandoned = false;
        --abandoned_running;
      }
      w->current = 0;
    }
    w->exited = true;
    exit_cv.notify_all();
  }
};

ThreadPool::ThreadPool(Options options) : state_(std::make_shared<State>()) {
  options.threads = std::max<size_t>(options.threads, 1);
  options.max_threads = std::max(options.max_threads, options.threads);
  state_->options = options;
  // Workers start on demand (submit()), so an owner that never submits costs no thread.
}

ThreadPool::~ThreadPool() {
  std::unique_lock lock(state_->mu);
  state_->stopping = true;
  state_->queue.clear();
  state_->work_cv.notify_all();
  const auto deadline = std::chrono::steady_clock::now() + state_->options.shutdown_grace;
  for (auto& w : state_->workers) {
    // Idle workers exit at once and running tasks are waited for; a worker stuck in an abandoned
    // task gets until the deadline.
    while (!w->exited) {
      if (w->abandoned) {
        if (!state_->exit_cv.wait_until(lock, deadline, [&] { return w->exited; })) break;
      } else {
        state_->exit_cv.wait(lock, [&] { return w->exited || w->abandoned; });
      }
    }
    if (!w->thread.joinable()) continue;
    if (w->exited) {
      lock.unlock();
      w->thread.join();
      lock.lock();
    } else {
      w->thread.detach();  // stuck past the grace period: see the header
    }
  }
}

ThreadPool::TaskId ThreadPool::submit(std::function<void()> task) {
  std::lock_guard lock(state_->mu);
  const TaskId id = state_->next_id++;
  state_->queue.push_back(QueuedTask{id, std::move(task)});
  // One more worker while tasks outnumber the idle ones and the pool is below its size (with no
  // worker at all, nothing could ever run: keep trying on every submit).
  if (state_->workers.empty() ||
      (state_->queue.size() > state_->idle && state_->workers.size() - state_->abandoned_running < state_->options.threads &&
       state_->workers.size() < state_->options.max_threads)) {
    state_->spawn_locked(state_);
  }
  state_->work_cv.notify_one();
  return id;
}

void ThreadPool::abandon(TaskId id) {
  std::lock_guard lock(state_->mu);
  auto queued = std::find_if(state_->queue.begin(), state_->queue.end(), [&](const QueuedTask& t) { return t.id == id; });
  if (queued != state_->queue.end()) {
    state_->queue.erase(queued);
    return;
  }
  for (auto& w : state_->workers) {
    if (w->current == id && !w->abandoned) {
      w->abandoned = true;
      ++state_->abandoned_running;
      state_->grow_locked(state_);
      return;
    }
  }
}

size_t ThreadPool::thread_count() const {
  std::lock_guard lock(state_->mu);
  return state_->workers.size();
}

size_t ThreadPool::abandoned_count() const {
  std::lock_guard lock(state_->mu);
  return state_->abandoned_running;
}

bool ThreadPool::saturated() const {
  std::lock_guard lock(state_->mu);
  return state_->abandoned_running >= state_->workers.size() &&
         state_->workers.size() >= state_->options.max_threads;
}

}  // namespace keel::detail
