// Server-Sent Events for /api/sessions/{id}/events and /api/runs/{id}/events: replay from
// Last-Event-ID, then live events; one pinger thread keeps every idle stream alive.
#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "api/api_routes.hpp"

namespace keel::api {

struct StreamPinger::Impl {
  std::chrono::milliseconds interval;
  mutable std::mutex mu;
  std::condition_variable cv;
  bool stopping = false;
  std::vector<std::weak_ptr<server::HttpResponder>> streams;
  std::thread thread;

  void loop() {
    std::unique_lock lock(mu);
    while (!cv.wait_for(lock, interval, [&] { return stopping; })) {
      std::erase_if(streams, [](const std::weak_ptr<server::HttpResponder>& w) {
        auto s = w.lock();
        return !s || s->closed() || !s->write(": ping\n\n");
      });
    }
  }
};

StreamPinger::StreamPinger(int64_t interval_ms) : impl_(std::make_shared<Impl>()) {
  impl_->interval = std::chrono::milliseconds(std::max<int64_t>(10, interval_ms));
  impl_->thread = std::thread([impl = impl_.get()] { impl->loop(); });
}

StreamPinger::~StreamPinger() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->stopping = true;
  }
  impl_->cv.notify_all();
  impl_->thread.join();
}

void StreamPinger::add(std::weak_ptr<server::HttpResponder> stream) {
  std::lock_guard lock(impl_->mu);
  impl_->streams.push_back(std::move(stream));
}

size_t StreamPinger::open_streams() const {
  std::lock_guard lock(impl_->mu);
  return static_cast<size_t>(std::count_if(impl_->streams.begin(), impl_->streams.end(), [](const auto& w) {
    auto s = w.lock();
    return s && !s->closed();
  }));
}

namespace {

// Last-Event-ID (header) or ?after=N; 0 (everything) when absent; -1 when malformed.
int64_t resume_point(const server::HttpRequest& req) {
  std::string_view text = req.header("last-event-id");
  if (text.empty()) {
    auto after = req.query.find("after");
    if (after == req.query.end()) return 0;
    text = after->second;
  }
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return -1;
  return value;
}

}  // namespace

void stream_events(const std::shared_ptr<ApiContext>& ctx, const server::HttpRequest& req,
                   std::shared_ptr<server::HttpResponder> out, const std::string& session_id,
                   const std::string& run_id) {
  int64_t after = resume_point(req);
  if (after < 0) {
    return reply_error(*ctx, req, *out, 400, "bad_request", "Last-Event-ID (or ?after) must be a non-negative event id");
  }
  server::HttpHeaders headers = cors_headers(req, ctx->access);
  headers.emplace_back("Content-Type", "text/event-stream");
  headers.emplace_back("Cache-Control", "no-cache");
  headers.emplace_back("X-Accel-Buffering", "no");
  out->start_stream(200, std::move(headers));
  out->write("retry: 2000\n\n");
  const bool one_run = !run_id.empty();
  // The subscription owns the stream: it lives until the client leaves (on_close unsubscribes) or
  // the run ends. A run's stream ends with the run; a session's stays open.
  Result<uint64_t> sub = ctx->events.subscribe(session_id, run_id, after, [stream = out, one_run](const LoggedEvent& e) {
    if (!stream->write(e.frame)) return false;
    if (one_run && (e.type == "run_finished" || e.type == "run_failed")) {
      stream->end();
      return false;
    }
    return true;
  });
  if (!sub.ok()) {
    nlohmann::json err = {{"code", "internal"}, {"message", "the event log cannot be read: " + sub.status().message()}};
    out->write("event: error\ndata: " + err.dump() + "\n\n");
    out->end();
    return;
  }
  if (*sub == 0) return;  // the replay already ended the stream
  std::weak_ptr<ApiContext> weak_ctx = ctx;
  out->on_close([weak_ctx, session_id, id = *sub] {
    if (auto c = weak_ctx.lock()) c->events.unsubscribe(session_id, id);
  });
  if (ctx->pinger) ctx->pinger->add(out);
}

}  // namespace keel::api
