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
  bool stopping = false;
  std::mutex write_mu;  // one batch written at a time; flush() waits for the one in progress
  std::thread writer;

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

  void write_loop() {
    for (;;) {
      {
        std::unique_lock lock(queue_mu);
        queue_cv.wait(lock, [&] { return stopping || !queue.empty(); });
        if (stopping && queue.empty()) return;
        // Let a burst gather into one transaction.
        queue_cv.wait_for(lock, std::chrono::milliseconds(options.flush_interval_ms), [&] { return stopping; });
      }
      write_queued();
    }
  }
};

EventLog::EventLog(Store& store, EventLogOptions options) : impl_(std::make_shared<Impl>(store, options)) {
  impl_->writer = std::thread([impl = impl_.get()] { impl->write_loop(); });
}

EventLog::~EventLog() {
  {
    std::lock_guard lock(impl_->queue_mu);
    impl_->stopping = true;
  }
  impl_->queue_cv.notify_all();
  impl_->writer.join();
  impl_->write_queued();
}

int64_t EventLog::publish(const std::string& session_id, const std::string& run_id, std::string_view type,
                          nlohmann::json data) {
  auto s = impl_->session(session_id);
  ServerEvent stored;
  int64_t seq = 0;
  {
    std::lock_guard lock(s->mu);
    impl_->load(*s, session_id);
    seq = ++s->last_seq;
    data["session_id"] = session_id;
    data["seq"] = seq;
    data["time_us"] = detail::wall_now_us();
    std::string text = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    auto event = std::make_shared<LoggedEvent>();
    event->seq = seq;
    event->run_id = run_id;
    event->type = std::string(type);
    event->frame = sse_frame(seq, type, text);
    s->recent.push_back(event);
    while (s->recent.size() > impl_->options.memory_events) s->recent.pop_front();
    std::erase_if(s->subscribers, [&](Impl::Subscriber& sub) {
      if (!sub.run_id.empty() && sub.run_id != run_id) return false;
      if (sub.sink(*event)) return false;
      impl_->subscriber_total.fetch_sub(1);
      return true;
    });
    stored.session_id = session_id;
    stored.seq = seq;
    stored.run_id = run_id;
    stored.type = std::string(type);
    stored.data = std::move(text);
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
    // Older than memory: from the store, which must hold everything published so far first.
    impl_->write_queued();
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
  auto s = impl_->session(session_id);
  std::lock_guard lock(s->mu);
  impl_->load(*s, session_id);
  return s->last_seq;
}

void EventLog::flush() { impl_->write_queued(); }

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
