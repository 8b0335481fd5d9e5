#include "api/event_log.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/clock.hpp"

namespace keel::api {
namespace {

std::string sse_frame(int64_t seq, std::string_view type, std::string_view data) {
  std::string frame;
  frame.reserve(data.size() + type.size() + 40);
  frame += "id: ";
  frame += std::to_string(seq);
  frame += "\nevent: ";
  frame += type;
  frame += "\ndata: ";
  frame += data;  // compact JSON: no newlines
  frame += "\n\n";
  return frame;
}

}  // namespace

struct EventLog::Impl {
  struct Subscriber {
    uint64_t id = 0;
    std::string run_id;
    Sink sink;
  };
  struct Session {
    std::mutex mu;
    bool loaded = false;
    int64_t last_seq = 0;
    std::deque<std::shared_ptr<const LoggedEvent>> recent;
    std::vector<Subscriber> subscribers;
  };

  Impl(Store& s, EventLogOptions o) : store(s), options(o) {}

  Store& store;
  EventLogOptions options;
  std::mutex map_mu;
  std::unordered_map<std::string, std::shared_ptr<Session>> sessions;
  std::atomic<uint64_t> next_subscriber{1};
  std::atomic<size_t> subscriber_total{0};

  std::mutex queue_mu;
  std::condition_variable queue_cv;
  std::vector<ServerEvent> queue;
  // numbered_by_store: events waiting for their number, with their data not yet rendered.
  struct Draft {
    ServerEvent event;
    nlohmann::json data;
  };
  std::vector<Draft> drafts;
  bool stopping = false;
  std::mutex write_mu;  // one batch written at a time; flush() waits for the one in progress
  std::thread writer;
  std::unique_ptr<StoreWatch> watch;  // numbered_by_store: other instances' events

  std::shared_ptr<Session> session(const std::string& id) {
    std::lock_guard lock(map_mu);
    auto& s = sessions[id];
    if (!s) s = std::make_shared<Session>();
    return s;
  }

  // Under the session's lock.
  void load(Session& s, const std::string& id) {
    if (s.loaded) return;
    Result<int64_t> last = store.last_server_event_seq(id);
    s.last_seq = last.ok() ? *last : 0;
    s.loaded = true;
  }

  void write_queued() {
    std::lock_guard write_lock(write_mu);
    std::vector<ServerEvent> batch;
    {
      std::lock_guard lock(queue_mu);
      batch.swap(queue);
    }
    if (batch.empty()) return;
    Status saved = store.append_server_events(batch);
    if (!saved.ok()) std::fprintf(stderr, "keel serve: events could not be saved: %s\n", saved.message().c_str());
  }

  // Under the session's lock: keeps `event` in memory and hands it to the subscribers.
  void fan_out_locked(Session& s, const std::shared_ptr<const LoggedEvent>& event) {
    s.last_seq = event->seq;
    s.recent.push_back(event);
    while (s.recent.size() > options.memory_events) s.recent.pop_front();
    std::erase_if(s.subscribers, [&](Subscriber& sub) {
      if (!sub.run_id.empty() && sub.run_id != event->run_id) return false;
      if (sub.sink(*event)) return false;
      subscriber_total.fetch_sub(1);
      return true;
    });
  }

  static std::shared_ptr<const LoggedEvent> logged(const ServerEvent& e) {
    auto event = std::make_shared<LoggedEvent>();
    event->seq = e.seq;
    event->run_id = e.run_id;
    event->type = e.type;
    event->frame = sse_frame(e.seq, e.type, e.data);
    return event;
  }

  // numbered_by_store, under the session's lock: hands on the stored events after the last one
  // handed on, up to `upto`, so a session's subscribers get every event once and in order
  // whichever instance published it.
  void catch_up_locked(Session& s, const std::string& id, int64_t upto) {
    while (s.last_seq < upto) {
      Result<std::vector<ServerEvent>> page = store.list_server_events(id, s.last_seq, 512);
      if (!page.ok()) {
        std::fprintf(stderr, "keel serve: events could not be read: %s\n", page.status().message().c_str());
        return;
      }
      if (page->empty()) return;
      for (const ServerEvent& e : *page) {
        if (e.seq > upto) return;
        fan_out_locked(s, logged(e));
      }
    }
  }

  // numbered_by_store: `e` was committed (or another instance committed events of `id` up to
  // `upto`). Sessions no one here has touched are left to the store.
  void deliver(const std::string& id, const ServerEvent* e, int64_t upto) {
    std::shared_ptr<Session> s;
    {
      std::lock_guard lock(map_mu);
      auto it = sessions.find(id);
      if (it == sessions.end()) return;
      s = it->second;
    }
    std::lock_guard lock(s->mu);
    if (!s->loaded) return;
    if (e == nullptr) {
      catch_up_locked(*s, id, upto);
      return;
    }
    catch_up_locked(*s, id, e->seq - 1);
    if (e->seq == s->last_seq + 1) fan_out_locked(*s, logged(*e));
  }

  // Another instance committed events of `id` ("": of any session).
  void changed(const std::string& id) {
    if (!id.empty()) {
      deliver(id, nullptr, INT64_MAX);
      return;
    }
    std::vector<std::string> ids;
    {
      std::lock_guard lock(map_mu);
      for (const auto& [key, session] : sessions) ids.push_back(key);
    }
    for (const std::string& each : ids) deliver(each, nullptr, INT64_MAX);
  }

  // numbered_by_store: the store numbers and saves the drafts; each is then handed on. A batch the
  // database refused (it is down) is kept and tried again, unless the log is stopping.
  void write_drafts() {
    std::lock_guard write_lock(write_mu);
    std::vector<Draft> batch;
    {
      std::lock_guard lock(queue_mu);
      batch.swap(drafts);
    }
    if (batch.empty()) return;
    std::vector<ServerEvent> events;
    events.reserve(batch.size());
    for (Draft& d : batch) events.push_back(d.event);
    Status saved = store.append_numbered_server_events(events, [&](ServerEvent& e) {
      nlohmann::json& data = batch[static_cast<size_t>(&e - events.data())].data;
      data["seq"] = e.seq;
      e.data = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    });
    if (!saved.ok()) {
      std::fprintf(stderr, "keel serve: events could not be saved (kept to try again): %s\n", saved.message().c_str());
      std::lock_guard lock(queue_mu);
      if (stopping) return;
      batch.insert(batch.end(), std::make_move_iterator(drafts.begin()), std::make_move_iterator(drafts.end()));
      drafts = std::move(batch);
      retry_after_failure = true;
      return;
    }
    for (const ServerEvent& e : events) {
      if (e.seq != 0) deliver(e.session_id, &e, e.seq);
    }
  }
  bool retry_after_failure = false;  // under queue_mu

  void write_loop() {
    for (;;) {
      {
        std::unique_lock lock(queue_mu);
        queue_cv.wait(lock, [&] { return stopping || !queue.empty() || !drafts.empty(); });
        if (stopping && queue.empty() && drafts.empty()) return;
        if (std::exchange(retry_after_failure, false)) {
          queue_cv.wait_for(lock, std::chrono::milliseconds(500), [&] { return stopping; });
        } else if (!options.numbered_by_store) {
          // Let a burst gather into one transaction. (Numbered events are written at once: what
          // comes while one batch commits makes the next.)
          queue_cv.wait_for(lock, std::chrono::milliseconds(options.flush_interval_ms), [&] { return stopping; });
        }
      }
      write_queued();
      write_drafts();
    }
  }
};

EventLog::EventLog(Store& store, EventLogOptions options) : impl_(std::make_shared<Impl>(store, options)) {
  impl_->writer = std::thread([impl = impl_.get()] { impl->write_loop(); });
  if (options.numbered_by_store) {
    Result<std::unique_ptr<StoreWatch>> watch =
        store.watch_server_events([impl = impl_.get()](const std::string& id) { impl->changed(id); });
    if (watch.ok()) {
      impl_->watch = std::move(watch).value();
    } else {
      std::fprintf(stderr, "keel serve: events of other instances will not stream here: %s\n",
                   watch.status().message().c_str());
    }
  }
}

EventLog::~EventLog() {
  impl_->watch.reset();  // no more deliveries from other instances
  {
    std::lock_guard lock(impl_->queue_mu);
    impl_->stopping = true;
  }
  impl_->queue_cv.notify_all();
  impl_->writer.join();
  impl_->write_queued();
  impl_->write_drafts();
}

int64_t EventLog::publish(const std::string& session_id, const std::string& run_id, std::string_view type,
                          nlohmann::json data) {
  data["session_id"] = session_id;
  data["time_us"] = detail::wall_now_us();
  if (impl_->options.numbered_by_store) {
    Impl::Draft draft;
    draft.event.session_id = session_id;
    draft.event.run_id = run_id;
    draft.event.type = std::string(type);
    draft.data = std::move(data);
    {
      std::lock_guard lock(impl_->queue_mu);
      impl_->drafts.push_back(std::move(draft));
    }
    impl_->queue_cv.notify_one();
    return 0;
  }
  auto s = impl_->session(session_id);
  ServerEvent stored;
  int64_t seq = 0;
  {
    std::lock_guard lock(s->mu);
    impl_->load(*s, session_id);
    seq = s->last_seq + 1;
    data["seq"] = seq;
    stored.session_id = session_id;
    stored.seq = seq;
    stored.run_id = run_id;
    stored.type = std::string(type);
    stored.data = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    impl_->fan_out_locked(*s, Impl::logged(stored));
  }
  {
    std::lock_guard lock(impl_->queue_mu);
    impl_->queue.push_back(std::move(stored));
  }
  impl_->queue_cv.notify_one();
  return seq;
}

Result<uint64_t> EventLog::subscribe(const std::string& session_id, const std::string& run_id, int64_t after_seq,
                                     Sink sink) {
  auto s = impl_->session(session_id);
  std::lock_guard lock(s->mu);
  impl_->load(*s, session_id);
  auto wanted = [&](const std::string& event_run) { return run_id.empty() || event_run == run_id; };
  bool open = true;
  int64_t memory_from = s->recent.empty() ? s->last_seq + 1 : s->recent.front()->seq;
  if (after_seq + 1 < memory_from) {
    // Older than memory: from the store, which must hold everything published so far first
    // (numbered events are in it before they are handed on; their writer takes session locks).
    if (!impl_->options.numbered_by_store) impl_->write_queued();
    int64_t next = after_seq;
    while (open && next + 1 < memory_from) {
      KEEL_ASSIGN_OR_RETURN(std::vector<ServerEvent> page, impl_->store.list_server_events(session_id, next, 512));
      if (page.empty()) break;
      for (const ServerEvent& e : page) {
        next = e.seq;
        if (e.seq >= memory_from) break;
        if (!wanted(e.run_id)) continue;
        LoggedEvent replay;
        replay.seq = e.seq;
        replay.run_id = e.run_id;
        replay.type = e.type;
        replay.frame = sse_frame(e.seq, e.type, e.data);
        if (!sink(replay)) {
          open = false;
          break;
        }
      }
    }
  }
  for (const auto& e : s->recent) {
    if (!open) break;
    if (e->seq > after_seq && wanted(e->run_id)) open = sink(*e);
  }
  if (!open) return uint64_t{0};
  uint64_t id = impl_->next_subscriber.fetch_add(1);
  s->subscribers.push_back({id, run_id, std::move(sink)});
  impl_->subscriber_total.fetch_add(1);
  return id;
}

void EventLog::unsubscribe(const std::string& session_id, uint64_t id) {
  std::shared_ptr<Impl::Session> s;
  {
    std::lock_guard lock(impl_->map_mu);
    auto it = impl_->sessions.find(session_id);
    if (it == impl_->sessions.end()) return;
    s = it->second;
  }
  std::lock_guard lock(s->mu);
  size_t before = s->subscribers.size();
  std::erase_if(s->subscribers, [&](const Impl::Subscriber& sub) { return sub.id == id; });
  impl_->subscriber_total.fetch_sub(before - s->subscribers.size());
}

Result<int64_t> EventLog::last_seq(const std::string& session_id) {
  if (impl_->options.numbered_by_store) {
    impl_->write_drafts();
    return impl_->store.last_server_event_seq(session_id);
  }
  auto s = impl_->session(session_id);
  std::lock_guard lock(s->mu);
  impl_->load(*s, session_id);
  return s->last_seq;
}

void EventLog::flush() {
  impl_->write_queued();
  impl_->write_drafts();
}

void EventLog::drop_session(const std::string& session_id) {
  std::shared_ptr<Impl::Session> s;
  {
    std::lock_guard lock(impl_->map_mu);
    auto it = impl_->sessions.find(session_id);
    if (it == impl_->sessions.end()) return;
    s = std::move(it->second);
    impl_->sessions.erase(it);
  }
  std::lock_guard lock(s->mu);
  impl_->subscriber_total.fetch_sub(s->subscribers.size());
  s->subscribers.clear();
}

size_t EventLog::subscriber_count() const { return impl_->subscriber_total.load(); }

}  // namespace keel::api
