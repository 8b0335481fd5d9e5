// api/a2a_run_watch.hpp — follows one run's events for an A2A request that waits on it: the
// blocking SendMessage (until the task ends or needs input) and the streaming one (each event as
// it comes). Subscribes to the session before the run is started or answered, so nothing it
// publishes is missed, from the session's newest event on (earlier ones are not this task's).
//
// Thread-safety: the event log's sink adds; one waiting thread takes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "api/event_log.hpp"

namespace keel::api::a2a {

struct WatchedEvent {
  std::string run_id;
  std::string type;
  nlohmann::json data;
};

class RunWatch {
 public:
  RunWatch(EventLog& events, std::string session_id);
  ~RunWatch();  // unsubscribes
  RunWatch(const RunWatch&) = delete;
  RunWatch& operator=(const RunWatch&) = delete;

  // Whether the subscription holds (the event log could be read).
  const Status& status() const { return status_; }
  // The run whose events next() returns (known once the run is posted; events of other runs of
  // the session are dropped, those that came before are kept).
  void follow(std::string run_id);
  // The next event of the followed run, or nullopt after `wait` without one.
  std::optional<WatchedEvent> next(std::chrono::milliseconds wait);

 private:
  EventLog& events_;
  std::string session_id_;
  Status status_ = Status::Ok();
  uint64_t subscription_ = 0;
  std::mutex mu_;
  std::condition_variable arrived_;
  std::deque<WatchedEvent> queue_;
  std::string run_id_;
};

}  // namespace keel::api::a2a
