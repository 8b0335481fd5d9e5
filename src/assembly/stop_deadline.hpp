// assembly/stop_deadline.hpp — requests stop on a stop_source once a timeout passes, unless the
// owner finished first: bounds how long a question put to a person (an MCP server's elicitation,
// a sampling approval) may wait for an answer.
//
// Thread-safety: one owner; the watching thread ends in the destructor.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <thread>

namespace keel::assembly {

class StopDeadline {
 public:
  StopDeadline(std::stop_source source, std::chrono::milliseconds timeout)
      : thread_([this, source, timeout]() mutable {
          std::unique_lock lock(mu_);
          if (!cv_.wait_for(lock, timeout, [this] { return done_; })) source.request_stop();
        }) {}
  ~StopDeadline() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  StopDeadline(const StopDeadline&) = delete;
  StopDeadline& operator=(const StopDeadline&) = delete;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;  // last: it starts once the members it uses exist
};

}  // namespace keel::assembly
