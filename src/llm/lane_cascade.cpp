// keel/lanes.hpp: tries lanes in order, with a token bucket and a timeout floor per lane.
#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>
#include <utility>

#include "keel/lanes.hpp"

namespace keel {
namespace {

using LaneClock = std::chrono::steady_clock;

// Errors a different backend may not have: the server is down or slow, this lane's key or model
// is wrong, or its client could not be made.
bool lane_error_falls_through(ErrorCode code) {
  return code == ErrorCode::kUnavailable || code == ErrorCode::kDeadlineExceeded ||
         code == ErrorCode::kUnauthenticated || code == ErrorCode::kNotFound;
}

struct Lane {
  LaneSpec spec;
  std::optional<Result<std::unique_ptr<LlmClient>>> client;  // made on first use
  double tokens = 0;                                          // token bucket level
  LaneClock::time_point refilled;

  // Takes a token when one is there; refills by the elapsed time first.
  bool take_token(LaneClock::time_point now) {
    if (spec.rate_limit_per_minute <= 0) return true;
    double elapsed_min = std::chrono::duration<double>(now - refilled).count() / 60.0;
    tokens = std::min(spec.rate_limit_per_minute, tokens + elapsed_min * spec.rate_limit_per_minute);
    refilled = now;
    if (tokens < 1.0) return false;
    tokens -= 1.0;
    return true;
  }
};

std::string lane_name(size_t index, const Lane& lane) {
  std::string s = "lane ";
  s.append(std::to_string(index + 1));
  if (!lane.spec.label.empty()) s.append(" (").append(lane.spec.label).append(")");
  return s;
}

std::string number_text(double v) {
  std::string s = std::to_string(v);
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  return s;
}

class LaneCascade final : public LlmClient {
 public:
  explicit LaneCascade(std::vector<LaneSpec> specs) {
    const LaneClock::time_point now = LaneClock::now();
    for (LaneSpec& s : specs) {
      Lane lane;
      lane.tokens = s.rate_limit_per_minute;
      lane.refilled = now;
      lane.spec = std::move(s);
      lanes_.push_back(std::move(lane));
    }
  }

  Result<ModelReply> complete(const ModelRequest& request, const CallOptions& options) override {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string failures;  // "lane 1 (x): why; lane 2 (y): why"
    Status last;
    int attempt = 0;
    for (size_t i = 0; i < lanes_.size(); ++i) {
      if (options.stop.stop_requested()) return Status::Cancelled("the model call was cancelled");
      Lane& lane = lanes_[i];
      const std::string name = lane_name(i, lane);
      Status why;
      bool skipped = false;
      if (!lane.take_token(LaneClock::now())) {
        std::string m = "skipped: over its rate limit of ";
        m.append(number_text(lane.spec.rate_limit_per_minute)).append(" calls per minute");
        why = Status::ResourceExhausted(std::move(m));
        skipped = true;
      } else {
        if (!lane.client) lane.client = lane.spec.create();
        if (!lane.client->ok()) {
          std::string m = "load failure: ";
          m.append(lane.client->status().message());
          why = Status(lane.client->status().code(), std::move(m));
          skipped = true;
        } else {
          Result<ModelReply> reply = (**lane.client)->complete(request, lane_options(options, lane, name, attempt));
          if (reply.ok()) return reply;
          why = reply.status();
          if (!lane_error_falls_through(why.code()) || options.stop.stop_requested()) return reply;
        }
      }
      if (!failures.empty()) failures.append("; ");
      failures.append(name).append(": ").append(why.message());
      last = why;
      ++attempt;
      if (options.on_retry) {
        std::string m = name;
        m.append(skipped ? " " : " failed: ").append(why.message());
        if (i + 1 < lanes_.size()) {
          m.append("; trying ").append(lane_name(i + 1, lanes_[i + 1]));
        } else {
          m.append("; no lane left");
        }
        options.on_retry(attempt, Status(why.code(), std::move(m)), 0);
      }
    }
    std::string m = "every lane failed: ";
    m.append(failures);
    return Status(last.code(), std::move(m));
  }

  std::string describe() const override {
    std::string d = "lanes: ";
    for (size_t i = 0; i < lanes_.size(); ++i) {
      if (i > 0) d.append(" > ");
      d.append(lane_name(i, lanes_[i]));
    }
    return d;
  }

 private:
  // The lane's view of the call: its timeout floor applied, its own retries numbered after the
  // cascade's attempts so far and named after the lane.
  static CallOptions lane_options(const CallOptions& options, const Lane& lane, const std::string& name,
                                  const int& attempt) {
    CallOptions o = options;
    if (options.timeout_ms > 0 && lane.spec.timeout_floor_ms > options.timeout_ms) {
      o.timeout_ms = lane.spec.timeout_floor_ms;
    }
    if (options.on_retry) {
      o.on_retry = [outer = options.on_retry, name, &attempt](int n, const Status& why, int64_t delay_ms) {
        std::string m = name;
        m.append(": ").append(why.message());
        outer(attempt + n, Status(why.code(), std::move(m)), delay_ms);
      };
    }
    return o;
  }

  std::mutex mutex_;
  std::vector<Lane> lanes_;
};

}  // namespace

Result<std::unique_ptr<LlmClient>> make_lane_cascade(std::vector<LaneSpec> lanes) {
  if (lanes.empty()) return Status::InvalidArgument("a lane cascade needs at least one lane");
  for (size_t i = 0; i < lanes.size(); ++i) {
    std::string where = "lane ";
    where.append(std::to_string(i + 1));
    if (!lanes[i].create) return Status::InvalidArgument(where + " has no create function");
    if (lanes[i].rate_limit_per_minute < 0 || lanes[i].timeout_floor_ms < 0) {
      return Status::InvalidArgument(where + ": rate_limit_per_minute and timeout_floor_ms must be >= 0");
    }
  }
  return std::unique_ptr<LlmClient>(new LaneCascade(std::move(lanes)));
}

}  // namespace keel
