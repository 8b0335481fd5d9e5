#include "api/a2a_run_watch.hpp"

namespace keel::api::a2a {

RunWatch::RunWatch(EventLog& events, std::string session_id) : events_(events), session_id_(std::move(session_id)) {
  Result<int64_t> last = events_.last_seq(session_id_);
  if (!last.ok()) {
    status_ = last.status();
    return;
  }
  // From the newest event on: what the session did before this request is not this task's.
  Result<uint64_t> sub = events_.subscribe(session_id_, "", *last, [this](const LoggedEvent& e) {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t at = e.frame.find("\ndata: ");
    nlohmann::json data = at == std::string::npos ? nlohmann::json::object()
                                                  : nlohmann::json::parse(e.frame.substr(at + 7), nullptr, false);
    if (data.is_discarded()) data = nlohmann::json::object();
    queue_.push_back(WatchedEvent{e.run_id, e.type, std::move(data)});
    arrived_.notify_all();
    return true;
  });
  if (!sub.ok()) {
    status_ = sub.status();
    return;
  }
  subscription_ = *sub;
}

RunWatch::~RunWatch() {
  if (subscription_ != 0) events_.unsubscribe(session_id_, subscription_);
}

void RunWatch::follow(std::string run_id) {
  std::lock_guard<std::mutex> lock(mu_);
  run_id_ = std::move(run_id);
}

std::optional<WatchedEvent> RunWatch::next(std::chrono::milliseconds wait) {
  std::unique_lock<std::mutex> lock(mu_);
  const auto deadline = std::chrono::steady_clock::now() + wait;
  for (;;) {
    while (!queue_.empty()) {
      WatchedEvent e = std::move(queue_.front());
      queue_.pop_front();
      if (e.run_id == run_id_) return e;
    }
    if (arrived_.wait_until(lock, deadline) == std::cv_status::timeout && queue_.empty()) return std::nullopt;
  }
}

}  // namespace keel::api::a2a
