// api/event_log.hpp — every session's events as keel serve streams them: numbered, fanned out to
// the open event streams at once, and kept in the store so a client that reconnects with
// Last-Event-ID (even after a restart) gets what it missed.
//
//   EventLog log(store);
//   auto sub = log.subscribe("s_1", "", /*after=*/0, [](const LoggedEvent& e) { return out->write(e.frame); });
//   log.publish("s_1", "r_1", "tool_call", {{"name", "fs_list"}});
//
// The newest events of each session stay in memory; older ones are read back from the store. A
// background writer saves new events in batches, so publishing never waits for the disk. With
// several instances on one database (EventLogOptions::numbered_by_store) the database numbers the
// events, and each instance's streams also carry what the others publish.
//
// Thread-safety: every member may be called from any thread. Sinks are called with the session's
// lock held, in seq order: they must be quick and must not call back into the log.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "keel/store/store.hpp"

namespace keel::api {

struct LoggedEvent {
  int64_t seq = 0;
  std::string run_id;
  std::string type;
  std::string frame;  // the whole Server-Sent Events frame: "id: N\nevent: T\ndata: {...}\n\n"
};

struct EventLogOptions {
  size_t memory_events = 512;  // per session, kept in memory for quick replay
  int64_t flush_interval_ms = 20;
  // Several instances publish to the sessions of one database (it is not this process's alone):
  // the store numbers each event as it commits it, streams get events in commit order, and what
  // other instances commit reaches this one's streams through Store::watch_server_events.
  bool numbered_by_store = false;
};

class EventLog {
 public:
  explicit EventLog(Store& store, EventLogOptions options = {});
  ~EventLog();  // saves what is still queued
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  // Numbers the event, adds "session_id", "seq" and "time_us" (Unix epoch microseconds) to
  // `data`, hands it to the session's subscribers and queues it for the store. Returns its seq;
  // 0 when the store numbers events (numbered_by_store): then it is numbered, saved and handed to
  // subscribers a moment later, in the order the database committed it.
  int64_t publish(const std::string& session_id, const std::string& run_id, std::string_view type,
                  nlohmann::json data);

  // Receives a session's events with seq > after_seq (stored ones first, then live), only those
  // of `run_id` when it is not empty. The sink returns false to stop receiving. Returns an id for
  // unsubscribe(), or the store's error when the replay cannot be read.
  using Sink = std::function<bool(const LoggedEvent&)>;
  Result<uint64_t> subscribe(const std::string& session_id, const std::string& run_id, int64_t after_seq, Sink sink);
  void unsubscribe(const std::string& session_id, uint64_t id);
  // The seq of the session's newest event (0: none), for a subscription that wants only what
  // comes next; or the store's error.
  Result<int64_t> last_seq(const std::string& session_id);

  // Writes every queued event to the store now.
  void flush();
  // Forgets a deleted session's memory and subscribers.
  void drop_session(const std::string& session_id);

  // Open subscriptions (health, tests).
  size_t subscriber_count() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace keel::api
