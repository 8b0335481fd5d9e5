// The autopilot's loop (keel/autopilot.hpp): each cycle polls the due sources, stores their
// findings as observations, collects the observations that finished, and starts the due ones on
// the workers, unless a budget guard holds work back. Decisions about retries, stalls and caps
// are the core's (keel/core/autopilot_rules.hpp); this file moves observations in the store and
// reports each move.
#include "keel/autopilot.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <mutex>

#include "autopilot/autopilot_report.hpp"
#include "autopilot/observation_source.hpp"
#include "base/clock.hpp"
#include "base/random_token.hpp"
#include "base/thread_pool.hpp"
#include "keel/core/autopilot_rules.hpp"

namespace keel {

std::string_view autopilot_event_name(AutopilotEvent::Kind kind) {
  switch (kind) {
    case AutopilotEvent::Kind::kObserved: return "observed";
    case AutopilotEvent::Kind::kDeduplicated: return "deduplicated";
    case AutopilotEvent::Kind::kTransition: return "transition";
    case AutopilotEvent::Kind::kSourceError: return "source_error";
    case AutopilotEvent::Kind::kSourceOk: return "source_ok";
    case AutopilotEvent::Kind::kGuard: return "guard";
    case AutopilotEvent::Kind::kCycle: return "cycle";
  }
  return "cycle";
}

namespace {

constexpr int64_t kHourMs = 3600000;
constexpr int64_t kHeartbeatMs = 10000;  // the status document is rewritten at least this often
constexpr const char* kSpendScope = "autopilot";

}  // namespace

namespace detail {

// One finished attempt, handed from a worker to the loop.
struct FinishedAttempt {
  Observation observation;
  ObservationOutcome outcome;
  int64_t started_ms = 0;
  int64_t ended_ms = 0;
  bool interrupted = false;  // stopped by shutdown: back to pending, not a failure
};

}  // namespace detail

using detail::FinishedAttempt;

class Autopilot::Impl {
 public:
  explicit Impl(AutopilotOptions options) : o_(std::move(options)) {
    if (!o_.now_ms) o_.now_ms = detail::wall_now_ms;
    detail::SourceEnv env{o_.workspace, o_.store, o_.mcp_resources};
    for (const AutopilotSourceConfig& s : o_.config.sources) {
      sources_.push_back(detail::make_observation_source(s, env));
      report_.add_source(s.name, s.kind);
    }
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    detail::ThreadPool::Options p;
    p.threads = static_cast<size_t>(o_.config.concurrency);
    p.max_threads = p.threads;
    pool_ = std::make_unique<detail::ThreadPool>(p);
  }

  ~Impl() {
    stop_work_.request_stop();
    wait_idle();
    pool_.reset();
    if (wake_fd_ >= 0) ::close(wake_fd_);
  }

  Status run(std::stop_token stop) {
    while (!stop.stop_requested()) {
      Result<AutopilotCycleMetrics> m = cycle(false, stop);
      if (!m.ok()) return m.status();
      sleep_until_due(stop);
    }
    stop_work_.request_stop();
    wait_idle();
    // What the stop interrupted goes back to pending, with its spans like any cycle's.
    AutopilotCycleMetrics last;
    last.cycle = cycles_;
    last.started_ms = o_.now_ms();
    KEEL_ASSIGN_OR_RETURN(bool collected, collect_into(last.started_ms, last));
    if (collected) record_spans(last);
    return stopped();
  }

  Result<AutopilotCycleMetrics> run_once(std::stop_token stop) {
    KEEL_ASSIGN_OR_RETURN(AutopilotCycleMetrics m, cycle(true, stop));
    KEEL_TRY(stopped());
    return m;
  }

  Result<AutopilotCycleMetrics> cycle(bool wait, std::stop_token stop) {
    const int64_t start = o_.now_ms();
    if (!recovered_) KEEL_TRY(recover());
    AutopilotCycleMetrics m;
    m.cycle = ++cycles_;
    m.started_ms = start;
    trace_id_.clear();
    spans_.clear();
    bool busy = poll_sources(start, stop, m);
    KEEL_ASSIGN_OR_RETURN(bool collected, collect_into(start, m));
    busy = busy || collected;
    KEEL_ASSIGN_OR_RETURN(bool started, start_due(start));
    busy = busy || started;
    if (wait) {
      wait_idle();
      KEEL_ASSIGN_OR_RETURN(bool more, collect_into(o_.now_ms(), m));
      busy = busy || more;
    }
    const int64_t end = o_.now_ms();
    m.duration_ms = end - start;
    report_.add_cycle(m);
    if (busy) {
      record_spans(m);
      emit({AutopilotEvent::Kind::kCycle, end, "", 0, "", "", "", m});
    }
    if (busy || end - last_status_ms_ >= kHeartbeatMs) KEEL_TRY(write_status(end));
    return m;
  }

 private:
  void emit(const AutopilotEvent& e) {
    if (o_.on_event) o_.on_event(e);
  }

  // The trace of this cycle's spans, made when the first span needs it (idle cycles have none).
  const std::string& trace_id() {
    if (trace_id_.empty()) trace_id_ = detail::random_hex(16);
    return trace_id_;
  }

  // Stores and exports the cycle's spans under a root span of `m`.
  void record_spans(const AutopilotCycleMetrics& m) {
    spans_.insert(spans_.begin(), detail::cycle_span(trace_id(), m));
    for (const SpanRecord& s : spans_) (void)o_.store->record_span(s);
    if (o_.export_spans) o_.export_spans(spans_);
  }

  // The last status: not running.
  Status stopped() {
    report_.set_running(false, o_.now_ms());
    return write_status(o_.now_ms());
  }

  // Observations a crash left processing go back to pending: their attempt never finished.
  Status recover() {
    recovered_ = true;
    report_.set_running(true, o_.now_ms());
    ObservationQuery q;
    q.state = ObservationState::kProcessing;
    q.limit = 0;
    KEEL_ASSIGN_OR_RETURN(std::vector<Observation> left, o_.store->list_observations(o_.workspace, q));
    for (const Observation& ob : left) {
      ObservationMove back{ObservationState::kPending, ob.failures, ob.last_error, "", 0};
      Status s = o_.store->move_observation(ob.id, ObservationState::kProcessing, back);
      if (!s.ok() && s.code() != ErrorCode::kFailedPrecondition) return s;
      if (s.ok()) transition(ob, ObservationState::kPending, "taken up again after a restart", o_.now_ms());
    }
    return Status::Ok();
  }

  bool poll_sources(int64_t now, std::stop_token stop, AutopilotCycleMetrics& m) {
    bool busy = false;
    for (size_t i = 0; i < sources_.size(); ++i) {
      detail::ObservationSource& src = *sources_[i];
      if (!src.due(now)) continue;
      Result<std::vector<detail::Finding>> found = src.poll(now, stop);
      const bool changed = report_.polled(i, now, found.ok() ? "" : found.status().message());
      if (!found.ok()) {
        if (changed) {
          busy = true;
          emit({AutopilotEvent::Kind::kSourceError, now, src.name(), 0, "", "", found.status().message(), {}});
        }
        continue;
      }
      if (changed) {
        busy = true;
        emit({AutopilotEvent::Kind::kSourceOk, now, src.name(), 0, "", "", "", {}});
      }
      for (detail::Finding& f : *found) {
        busy = true;
        ++m.seen;
        Observation ob;
        ob.workspace = o_.workspace;
        ob.source = src.name();
        ob.fingerprint = f.fingerprint;
        ob.kind = f.kind;
        ob.subject = f.subject;
        ob.payload = f.payload.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        ob.created_ms = now;
        Result<std::optional<int64_t>> id = o_.store->add_observation(ob);
        if (!id.ok()) {
          report_.polled(i, now, "cannot store an observation: " + id.status().message());
          emit({AutopilotEvent::Kind::kSourceError, now, src.name(), 0, f.subject, "", id.status().message(), {}});
          continue;
        }
        if (!id->has_value()) {
          ++m.deduplicated;
          emit({AutopilotEvent::Kind::kDeduplicated, now, src.name(), 0, f.subject, "", f.fingerprint, {}});
          continue;
        }
        ob.id = **id;
        emit({AutopilotEvent::Kind::kObserved, now, src.name(), ob.id, f.subject, "pending", f.kind, {}});
        spans_.push_back(detail::observation_span(trace_id(), ob, "observed", now, 0, ""));
      }
    }
    return busy;
  }

  // Starts due pending observations on free workers unless a budget guard holds them back.
  Result<bool> start_due(int64_t now) {
    const HourlyCaps caps{o_.config.max_tokens_per_hour, o_.config.max_cost_per_hour};
    std::string guard;
    if (caps.max_tokens > 0 || caps.max_cost > 0) {  // without caps the spend is not read every cycle
      KEEL_ASSIGN_OR_RETURN(SpendTotal hour, o_.store->spend_since(o_.workspace, kSpendScope, now - kHourMs));
      guard = hourly_cap_guard(caps, hour.tokens, hour.cost);
    }
    if (guard != report_.guard()) {
      report_.set_guard(guard);
      emit({AutopilotEvent::Kind::kGuard, now, "", 0, "", "", guard, {}});
    }
    if (!guard.empty()) return false;
    int running = 0;
    {
      std::lock_guard lock(mu_);
      running = running_;
    }
    const int take = observations_to_take(o_.config.concurrency, running);
    if (take == 0) return false;
    ObservationQuery q;
    q.state = ObservationState::kPending;
    q.due_by_ms = now;
    q.limit = take;
    q.oldest_first = true;
    KEEL_ASSIGN_OR_RETURN(std::vector<Observation> due, o_.store->list_observations(o_.workspace, q));
    bool started = false;
    for (Observation& ob : due) {
      ObservationMove take_it{ObservationState::kProcessing, ob.failures, ob.last_error, "", 0};
      Status s = o_.store->move_observation(ob.id, ObservationState::kPending, take_it);
      if (s.code() == ErrorCode::kFailedPrecondition) continue;  // another process took it
      KEEL_TRY(s);
      started = true;
      ob.state = ObservationState::kProcessing;
      transition(ob, ObservationState::kProcessing, "", now);
      submit(std::move(ob), now);
    }
    return started;
  }

  const AutopilotTriggerConfig* trigger_for(const std::string& source) const {
    for (const AutopilotTriggerConfig& t : o_.config.triggers) {
      if (t.source == source) return &t;
    }
    for (const AutopilotTriggerConfig& t : o_.config.triggers) {
      if (t.source == "*") return &t;
    }
    return nullptr;
  }

  const detail::ObservationSource* source_named(const std::string& name) const {
    for (const auto& s : sources_) {
      if (s->name() == name) return s.get();
    }
    return nullptr;
  }

  void submit(Observation ob, int64_t now) {
    {
      std::lock_guard lock(mu_);
      ++running_;
    }
    const AutopilotTriggerConfig* trigger = trigger_for(ob.source);
    const detail::ObservationSource* source = source_named(ob.source);
    pool_->submit([this, ob = std::move(ob), trigger, source, now]() {
      FinishedAttempt f;
      f.observation = ob;
      f.started_ms = now;
      std::stop_token stop = stop_work_.get_token();
      if (trigger == nullptr) {
        f.outcome.kind = ObservationOutcome::Kind::kDismissed;
        f.outcome.result = "no trigger takes observations of source '" + ob.source + "'";
      } else if (source != nullptr && !source->still_holds(ob)) {
        f.outcome.kind = ObservationOutcome::Kind::kDismissed;
        f.outcome.result = "what it saw is gone: " + ob.subject + " was removed or changed";
      } else {
        f.outcome = o_.work(ob, *trigger, stop);
      }
      f.ended_ms = o_.now_ms();
      f.interrupted = stop.stop_requested() && f.outcome.kind == ObservationOutcome::Kind::kFailed;
      {
        std::lock_guard lock(mu_);
        finished_.push_back(std::move(f));
        --running_;
      }
      idle_.notify_all();
      const uint64_t one = 1;
      if (wake_fd_ >= 0) (void)!::write(wake_fd_, &one, sizeof one);
    });
  }

  void wait_idle() {
    std::unique_lock lock(mu_);
    idle_.wait(lock, [this] { return running_ == 0; });
  }

  // Moves each finished observation to its next state.
  Result<bool> collect_into(int64_t now, AutopilotCycleMetrics& m) {
    std::deque<FinishedAttempt> done;
    {
      std::lock_guard lock(mu_);
      done.swap(finished_);
    }
    for (FinishedAttempt& f : done) {
      const Observation& ob = f.observation;
      const ObservationOutcome& out = f.outcome;
      if (out.tokens > 0 || out.cost > 0) {
        KEEL_TRY(o_.store->record_spend(SpendRecord{o_.workspace, kSpendScope, f.ended_ms, out.tokens, out.cost}));
      }
      ObservationMove move;
      std::string detail;
      if (f.interrupted) {
        move = {ObservationState::kPending, ob.failures, ob.last_error, "", 0};
        detail = "stopped before it finished; it runs again on the next start";
      } else if (out.kind == ObservationOutcome::Kind::kDone) {
        move = {ObservationState::kDone, 0, "", out.result, 0};
        detail = out.result;
        ++m.processed;
        m.proposals += out.proposals;
      } else if (out.kind == ObservationOutcome::Kind::kDismissed) {
        move = {ObservationState::kDismissed, ob.failures, ob.last_error, out.result, 0};
        detail = out.result;
        ++m.processed;
      } else {
        ++m.failed;
        RetryDecision d = decide_retry(ob.failures, o_.config.max_failures, now, o_.config.backoff_ms,
                                       o_.config.max_backoff_ms);
        move = {d.stalled ? ObservationState::kStalled : ObservationState::kPending, d.failures, out.error, "",
                d.next_attempt_ms};
        detail = out.error;
        if (d.stalled) detail = "stalled after " + std::to_string(d.failures) + " failures in a row: " + out.error;
      }
      KEEL_TRY(o_.store->move_observation(ob.id, ObservationState::kProcessing, move));
      transition(ob, move.state, detail, f.ended_ms);
      spans_.push_back(detail::observation_span(trace_id(), ob, std::string(observation_state_name(move.state)),
                                                f.started_ms, f.ended_ms - f.started_ms,
                                                out.trace_id.empty() ? detail : detail + " (" + out.trace_id + ")"));
    }
    return !done.empty();
  }

  void transition(const Observation& ob, ObservationState to, const std::string& detail, int64_t at) {
    emit({AutopilotEvent::Kind::kTransition, at, ob.source, ob.id, ob.subject, std::string(observation_state_name(to)),
          detail, {}});
  }

  Status write_status(int64_t now) {
    last_status_ms_ = now;
    return o_.store->put_daemon_status(o_.workspace, kAutopilotStatusName, report_.status_json(now).dump());
  }

  // Sleeps until the next cycle is due, a source's file event, or a worker's end.
  void sleep_until_due(std::stop_token stop) {
    std::vector<pollfd> fds;
    if (wake_fd_ >= 0) fds.push_back({wake_fd_, POLLIN, 0});
    for (const auto& s : sources_) {
      if (s->wake_fd() >= 0) fds.push_back({s->wake_fd(), POLLIN, 0});
    }
    const int64_t deadline = o_.now_ms() + o_.config.interval_ms;
    // A stop request wakes the poll through the same eventfd as a worker's end.
    std::stop_callback wake_on_stop(stop, [this] {
      const uint64_t one = 1;
      if (wake_fd_ >= 0) (void)!::write(wake_fd_, &one, sizeof one);
    });
    while (!stop.stop_requested()) {
      const int64_t left = deadline - o_.now_ms();
      if (left <= 0) return;
      const int n = ::poll(fds.data(), fds.size(), static_cast<int>(std::min<int64_t>(left, 60000)));
      if (n > 0) {
        uint64_t drained = 0;
        if (wake_fd_ >= 0) (void)!::read(wake_fd_, &drained, sizeof drained);
        return;  // inotify events are read by the source's poll
      }
    }
  }

  AutopilotOptions o_;
  std::vector<std::unique_ptr<detail::ObservationSource>> sources_;
  detail::AutopilotReport report_;
  std::unique_ptr<detail::ThreadPool> pool_;
  std::stop_source stop_work_;
  std::mutex mu_;
  std::condition_variable idle_;
  int running_ = 0;                 // guarded by mu_
  std::deque<FinishedAttempt> finished_;   // guarded by mu_
  int wake_fd_ = -1;
  int64_t cycles_ = 0;
  int64_t last_status_ms_ = 0;
  bool recovered_ = false;
  std::string trace_id_;
  std::vector<SpanRecord> spans_;
};

Result<std::unique_ptr<Autopilot>> Autopilot::create(AutopilotOptions options) {
  if (options.store == nullptr) return Status::InvalidArgument("the autopilot needs a store to keep its observations");
  if (!options.work) return Status::InvalidArgument("the autopilot needs something to do with observations");
  if (options.config.sources.empty()) {
    return Status::InvalidArgument("autopilot: no sources configured; add autopilot.sources to keel.yaml");
  }
  if (options.config.triggers.empty()) {
    return Status::InvalidArgument("autopilot: no triggers configured; add autopilot.triggers to keel.yaml");
  }
  return std::unique_ptr<Autopilot>(new Autopilot(std::make_unique<Impl>(std::move(options))));
}

Autopilot::Autopilot(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Autopilot::~Autopilot() = default;

Status Autopilot::run(std::stop_token stop) {
  return impl_->run(stop);
}

Result<AutopilotCycleMetrics> Autopilot::cycle(bool wait, std::stop_token stop) {
  return impl_->cycle(wait, stop);
}

Result<AutopilotCycleMetrics> Autopilot::run_once(std::stop_token stop) {
  return impl_->run_once(stop);
}

}  // namespace keel
