#include "api/idempotent_replies.hpp"

#include <functional>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "server/http_status.hpp"

namespace keel::api {

using Clock = std::chrono::steady_clock;

// One key's answer, complete or on its way.
struct IdempotentKept {
  size_t fingerprint = 0;                  // of the request body
  bool done = false;
  bool stream = false;
  int status = 0;
  server::HttpHeaders headers;
  std::string body;                        // the whole body, or every event of the stream
  Clock::time_point expires;
  std::vector<std::shared_ptr<server::HttpResponder>> waiting;  // retries that came while it ran
};

namespace {

using Kept = IdempotentKept;

void replay(server::HttpResponder& out, const Kept& kept) {
  server::HttpHeaders headers = kept.headers;
  headers.emplace_back("Idempotent-Replayed", "true");
  if (!kept.stream) {
    out.respond(kept.status, std::move(headers), kept.body);
    return;
  }
  out.start_stream(kept.status, std::move(headers));
  out.write(kept.body);
  out.end();
}

}  // namespace

struct IdempotentReplies::State {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<IdempotentKept>> entries;
  std::chrono::seconds ttl;
  size_t max_entries;

  // Called with mu held: drops expired answers, and the oldest finished ones beyond the cap.
  void trim(Clock::time_point now) {
    for (auto it = entries.begin(); it != entries.end();) {
      it = it->second->done && it->second->expires <= now ? entries.erase(it) : std::next(it);
    }
    while (entries.size() > max_entries) {
      auto oldest = entries.end();
      for (auto it = entries.begin(); it != entries.end(); ++it) {
        if (it->second->done && (oldest == entries.end() || it->second->expires < oldest->second->expires)) oldest = it;
      }
      if (oldest == entries.end()) break;
      entries.erase(oldest);
    }
  }
};

namespace {

// Passes the answer on to the first client and keeps it; when it is complete, sends it to the
// retries that waited. Dropped without a complete answer, the key is forgotten.
class RecordingResponder final : public server::HttpResponder {
 public:
  RecordingResponder(std::shared_ptr<IdempotentReplies::State> state, std::string key, std::shared_ptr<Kept> kept,
                     std::shared_ptr<server::HttpResponder> out)
      : state_(std::move(state)), key_(std::move(key)), kept_(std::move(kept)), out_(std::move(out)) {}
  ~RecordingResponder() override {
    if (!finished_) forget();
  }

  void respond(int status, server::HttpHeaders headers, std::string body) override {
    kept_->status = status;
    kept_->headers = headers;
    kept_->body = body;
    out_->respond(status, std::move(headers), std::move(body));
    complete();
  }
  void start_stream(int status, server::HttpHeaders headers) override {
    kept_->stream = true;
    kept_->status = status;
    kept_->headers = headers;
    out_->start_stream(status, std::move(headers));
  }
  bool write(std::string chunk) override {
    kept_->body.append(chunk);
    out_->write(std::move(chunk));
    return true;  // the run goes on for the retry even when this client left
  }
  void end() override {
    out_->end();
    complete();
  }
  // A keyed run is not stopped by its client leaving: a retry will want its answer.
  void on_close(std::function<void()>) override {}
  bool closed() const override { return false; }

 private:
  void complete() {
    if (finished_) return;
    finished_ = true;
    std::vector<std::shared_ptr<server::HttpResponder>> waiting;
    {
      std::lock_guard lock(state_->mu);
      kept_->done = true;
      kept_->expires = Clock::now() + state_->ttl;
      waiting = std::exchange(kept_->waiting, {});
    }
    for (auto& w : waiting) replay(*w, *kept_);
  }
  void forget() {
    std::vector<std::shared_ptr<server::HttpResponder>> waiting;
    {
      std::lock_guard lock(state_->mu);
      auto it = state_->entries.find(key_);
      if (it != state_->entries.end() && it->second == kept_) state_->entries.erase(it);
      waiting = std::exchange(kept_->waiting, {});
    }
    for (auto& w : waiting) {
      server::respond_error(*w, 409, "the first request with this Idempotency-Key ended without an answer; send it again");
    }
  }

  std::shared_ptr<IdempotentReplies::State> state_;
  std::string key_;
  std::shared_ptr<Kept> kept_;
  std::shared_ptr<server::HttpResponder> out_;
  bool finished_ = false;
};

}  // namespace

IdempotentReplies::IdempotentReplies(std::chrono::seconds ttl, size_t max_entries)
    : state_(std::make_shared<State>()) {
  state_->ttl = ttl;
  state_->max_entries = max_entries;
}

std::shared_ptr<server::HttpResponder> IdempotentReplies::claim(const server::HttpRequest& request,
                                                                std::shared_ptr<server::HttpResponder> out) {
  const std::string_view given = request.header("idempotency-key");
  if (given.empty()) return out;
  std::string key = request.method + " " + request.path + " " + std::string(given);
  const size_t fingerprint = std::hash<std::string_view>{}(request.body);
  std::shared_ptr<Kept> kept;
  {
    std::lock_guard lock(state_->mu);
    state_->trim(Clock::now());
    auto it = state_->entries.find(key);
    if (it == state_->entries.end()) {
      kept = std::make_shared<Kept>();
      kept->fingerprint = fingerprint;
      state_->entries.emplace(key, kept);
      return std::make_shared<RecordingResponder>(state_, std::move(key), std::move(kept), std::move(out));
    }
    kept = it->second;
    if (kept->fingerprint == fingerprint && !kept->done) {
      kept->waiting.push_back(std::move(out));  // answered when the first run is
      return nullptr;
    }
  }
  if (kept->fingerprint != fingerprint) {
    server::respond_json(*out, 400,
                         server::json_error_body("idempotency_key_reused",
                                                 "this Idempotency-Key was used for a different request body; use a "
                                                 "new key for a new request"),
                         {{"x-should-retry", "false"}});
    return nullptr;
  }
  replay(*out, *kept);
  return nullptr;
}

}  // namespace keel::api
