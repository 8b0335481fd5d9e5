#include "api/run_service.hpp"

#include <algorithm>
#include <chrono>
#include <random>

#include "api/run_service_impl.hpp"
#include "base/random_token.hpp"
#include "keel/config.hpp"
#include "keel/message.hpp"

namespace keel::api {
std::string_view run_phase_name(RunPhase phase) {
  switch (phase) {
    case RunPhase::kQueued: return "queued";
    case RunPhase::kRunning: return "running";
    case RunPhase::kWaitingApproval: return "waiting_approval";
    case RunPhase::kWaitingAnswer: return "waiting_answer";
  }
  return "queued";
}

void ForwardingAsker::attach(Target target) {
  std::lock_guard lock(mu_);
  target_ = std::move(target);
}

void ForwardingAsker::route(const std::string& run_id, Target target) {
  std::lock_guard lock(mu_);
  routes_[run_id] = std::move(target);
}

void ForwardingAsker::unroute(const std::string& run_id) {
  std::lock_guard lock(mu_);
  routes_.erase(run_id);
}

Result<UserAnswer> ForwardingAsker::ask(const UserQuestion& question, std::stop_token stop) {
  Target target;
  {
    std::lock_guard lock(mu_);
    auto routed = routes_.find(question.run_id);
    target = routed != routes_.end() ? routed->second : target_;
  }
  if (!target) return Status::FailedPrecondition("no one can answer questions here");
  return target(question, std::move(stop));
}

nlohmann::json settings_json(const RunSettings& s) {
  nlohmann::json j = nlohmann::json::object();
  if (!s.profile.empty()) j["profile"] = s.profile;
  if (s.max_rounds) j["max_rounds"] = *s.max_rounds;
  if (s.approval_mode) j["approval_mode"] = *s.approval_mode;
  return j;
}

RunSettings settings_from_json(const std::string& text) {
  RunSettings s;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return s;
  if (auto p = j.find("profile"); p != j.end() && p->is_string()) s.profile = p->get<std::string>();
  if (auto m = j.find("max_rounds"); m != j.end() && m->is_number_integer()) s.max_rounds = m->get<int>();
  if (auto a = j.find("approval_mode"); a != j.end() && a->is_string()) s.approval_mode = a->get<std::string>();
  return s;
}

RunService::Impl::Impl(Store& s, AgentFactory& f, EventLog& e, PendingInput& p, RunServiceOptions o)
    : store(s), factory(f), events(e), pending(p), options(std::move(o)) {
  lease.owner = options.instance.empty() ? "i_" + detail::random_hex(8) : options.instance;
  lease.duration_ms = std::max<int64_t>(1, options.lease_ms);
  detail::ThreadPool::Options po;
  po.threads = std::max<size_t>(1, options.workers);
  po.max_threads = po.threads;
  pool = std::make_unique<detail::ThreadPool>(po);
}

std::shared_ptr<ActiveRun> RunService::Impl::find(const std::string& run_id) const {
  std::lock_guard lock(mu);
  auto it = runs.find(run_id);
  return it == runs.end() ? nullptr : it->second;
}

Result<std::shared_ptr<ActiveRun>> RunService::Impl::active_locked(const std::string& run_id,
                                                                   const Result<RunRecord>& stored) const {
  auto it = runs.find(run_id);
  if (it != runs.end() && !(stored.ok() && run_state_is_terminal(stored->state))) return it->second;
  if (stored.ok()) return Status::FailedPrecondition("run '" + run_id + "' has already ended");
  return Status::NotFound("no run '" + run_id + "'");
}

void RunService::Impl::enqueue_locked(const std::shared_ptr<ActiveRun>& run) {
  run->phase = RunPhase::kQueued;
  if (!pool) return;  // shut down: the checkpoint brings it back on the next start
  std::weak_ptr<Impl> self = weak_from_this();
  pool->submit([self, run] {
    if (auto impl = self.lock()) impl->execute(run);
  });
}

void RunService::Impl::forget_locked(const std::shared_ptr<ActiveRun>& run) {
  runs.erase(run->id);
  auto s = session_runs.find(run->session_id);
  if (s != session_runs.end() && s->second == run->id) session_runs.erase(s);
  pending.forget_run(run->id);
  retired_cv.notify_all();
}

void RunService::Impl::retire_locked(const std::shared_ptr<ActiveRun>& run) {
  if (!run->lost) {
    // Not waiting for a restarting database while the service's lock is held (the API needs it):
    // a checkpoint left behind is removed at the keeper's next renewal or the next start.
    StoreOutageWaitOff quick;
    (void)store.delete_server_checkpoint(run->id);
  }
  forget_locked(run);
}

void RunService::Impl::abort_idle_locked(const std::shared_ptr<ActiveRun>& run, const std::string& why) {
  // Off the API's threads this write may wait out a database restart under the lock: an abort
  // that was not recorded would leave the run to be resumed.
  RunUpdate u;
  u.state = RunState::kAborted;
  u.error = why;
  (void)store.update_run(run->id, u);
  publish(*run, "run_failed", {{"kind", "aborted"}, {"error", why}, {"exit_code", 130}, {"session_id", run->session_id}});
  retire_locked(run);
}

void RunService::Impl::input_ready(const std::string& run_id) {
  std::lock_guard lock(mu);
  auto it = runs.find(run_id);
  if (it == runs.end()) return;
  const auto& run = it->second;
  if (run->phase == RunPhase::kWaitingApproval || run->phase == RunPhase::kWaitingAnswer) {
    if (stopping) return;  // the checkpoint stays; the next start resumes it
    run->resumed_because = run->phase == RunPhase::kWaitingApproval ? "approval_decided" : "question_answered";
    enqueue_locked(run);
  } else if (run->phase == RunPhase::kRunning) {
    run->resume_when_parked = true;
  }
}

void RunService::Impl::publish(const ActiveRun& run, std::string_view type, nlohmann::json body) {
  nlohmann::json data = {{"v", 1}, {"type", type}, {"run_id", run.id}};
  for (auto it = body.begin(); it != body.end(); ++it) data[it.key()] = std::move(it.value());
  events.publish(run.session_id, run.id, type, std::move(data));
}

RunService::RunService(Store& store, AgentFactory& factory, EventLog& events, PendingInput& pending,
                       std::shared_ptr<ForwardingAsker> asker, RunServiceOptions options)
    : impl_(std::make_shared<Impl>(store, factory, events, pending, std::move(options))) {
  std::weak_ptr<Impl> self = impl_;
  pending.set_on_ready([self](const std::string& run_id) {
    if (auto impl = self.lock()) impl->input_ready(run_id);
  });
  if (asker) {
    asker->attach([self](const UserQuestion& q, std::stop_token stop) -> Result<UserAnswer> {
      auto impl = self.lock();
      if (!impl) return Status::Unavailable("the server is stopping");
      return impl->ask(q, std::move(stop));
    });
  }
}

RunService::~RunService() {
  shutdown();
  impl_->pending.set_on_ready({});
}

Status RunService::validate(const RunSettings& settings) const {
  if (!settings.profile.empty()) {
    std::vector<ProfileInfo> profiles = impl_->factory.profiles();
    bool known = std::any_of(profiles.begin(), profiles.end(), [&](const ProfileInfo& p) { return p.name == settings.profile; });
    if (!known) {
      std::string names;
      for (const auto& p : profiles) names += (names.empty() ? "" : ", ") + p.name;
      return Status::InvalidArgument("no profile '" + settings.profile + "'; this server has: " + names);
    }
  }
  if (settings.max_rounds && (*settings.max_rounds < 1 || *settings.max_rounds > 1000)) {
    return Status::InvalidArgument("max_rounds must be between 1 and 1000, got " + std::to_string(*settings.max_rounds));
  }
  if (settings.approval_mode && !parse_approval_mode(*settings.approval_mode)) {
    return Status::InvalidArgument("approval_mode must be auto, confirm or deny, got '" + *settings.approval_mode + "'");
  }
  return Status::Ok();
}

Result<std::string> RunService::post_message(const std::string& session_id, const std::string& content,
                                             const RunSettings& settings, std::string* busy_run) {
  KEEL_TRY(validate(settings));
  auto run = std::make_shared<ActiveRun>();
  run->session_id = session_id;
  run->task = content;
  run->settings = settings;
  {
    std::unique_lock lock(impl_->mu);
    if (impl_->stopping) return Status::Unavailable("the server is shutting down");
    auto busy = impl_->session_runs.find(session_id);
    if (busy != impl_->session_runs.end() && !busy->second.empty()) {
      // A run whose end is stored has sent its end event and is retired a moment later: a client
      // that answered that event at once waits for the retirement instead of being refused.
      const std::string ending = busy->second;
      lock.unlock();
      Result<RunRecord> stored = impl_->store.get_run(ending);  // read outside the service's lock
      lock.lock();
      if (stored.ok() && run_state_is_terminal(stored->state)) {
        impl_->retired_cv.wait_for(lock, std::chrono::seconds(1), [&] {
          auto now = impl_->session_runs.find(session_id);
          return now == impl_->session_runs.end() || now->second != ending;
        });
      }
      if (impl_->stopping) return Status::Unavailable("the server is shutting down");
      busy = impl_->session_runs.find(session_id);
    }
    if (busy != impl_->session_runs.end()) {
      if (busy_run != nullptr) *busy_run = busy->second;
      return Status::FailedPrecondition("session '" + session_id + "' already has an active run (" + busy->second +
                                        "); wait for it to end, steer it or abort it");
    }
    impl_->session_runs[session_id] = "";  // reserved while the run is written
  }
  auto release = [&] {
    std::lock_guard lock(impl_->mu);
    impl_->session_runs.erase(session_id);
  };
  RunInfo info;
  info.session_id = session_id;
  info.task = content;
  Result<std::string> written =
      impl_->store.accept_server_run(info, Message::user(content), settings_json(settings).dump(), impl_->lease);
  if (!written.ok()) {
    release();
    if (written.status().code() == ErrorCode::kFailedPrecondition && busy_run != nullptr) {
      // The session's active run is another instance's: the session's latest run.
      if (Result<RunRecord> active = impl_->store.latest_run(session_id); active.ok()) *busy_run = active->id;
    }
    return written.status();
  }
  run->id = *written;
  run->held_since = std::chrono::steady_clock::now();
  std::lock_guard lock(impl_->mu);
  impl_->session_runs[session_id] = run->id;
  impl_->runs[run->id] = run;
  impl_->publish(*run, "run_queued", {{"task", content}});
  impl_->publish(*run, "user_message", {{"content", content}});
  impl_->enqueue_locked(run);
  return run->id;
}

Status RunService::Impl::abort_here(const std::string& run_id, const Result<RunRecord>& stored) {
  std::lock_guard lock(mu);
  KEEL_ASSIGN_OR_RETURN(std::shared_ptr<ActiveRun> run, active_locked(run_id, stored));
  run->abort_requested = true;
  run->park = static_cast<int>(ParkReason::kNone);
  if (run->phase == RunPhase::kRunning) {
    run->stop.request_stop();
  } else if (run->phase != RunPhase::kQueued) {
    abort_idle_locked(run, "aborted by the user while it waited");
  }
  return Status::Ok();  // a queued run is ended by the worker that picks it up
}

Status RunService::Impl::steer_here(const std::string& run_id, const Result<RunRecord>& stored,
                                    const std::string& text) {
  std::lock_guard lock(mu);
  KEEL_ASSIGN_OR_RETURN(std::shared_ptr<ActiveRun> run, active_locked(run_id, stored));
  if (run->agent == nullptr || !run->agent->steer(text)) run->steering.push_back(text);
  publish(*run, "steer", {{"content", text}});
  return Status::Ok();
}

Status RunService::abort(const std::string& run_id) {
  Result<RunRecord> stored = impl_->store.get_run(run_id);  // read before the service's lock is taken
  if (impl_->held_elsewhere(run_id, stored)) return impl_->forward(run_id, "abort", nlohmann::json::object());
  return impl_->abort_here(run_id, stored);
}

Status RunService::steer(const std::string& run_id, const std::string& text) {
  Result<RunRecord> stored = impl_->store.get_run(run_id);  // read before the service's lock is taken
  if (impl_->held_elsewhere(run_id, stored)) return impl_->forward(run_id, "steer", {{"content", text}});
  return impl_->steer_here(run_id, stored, text);
}

Status RunService::forward_input(const std::string& item_id, std::string_view kind, const nlohmann::json& body) {
  const std::string run_id = item_id.substr(0, item_id.find(':'));
  if (!impl_->held_elsewhere(run_id, impl_->store.get_run(run_id))) {
    return Status::NotFound("nothing '" + item_id + "' is pending");
  }
  nlohmann::json with_id = body;
  with_id["id"] = item_id;
  return impl_->forward(run_id, kind, with_id);
}

std::optional<RunPhase> RunService::phase(const std::string& run_id) const {
  auto run = impl_->find(run_id);
  if (!run) return std::nullopt;
  std::lock_guard lock(impl_->mu);
  return run->phase;
}

std::optional<std::string> RunService::active_run(const std::string& session_id) const {
  std::lock_guard lock(impl_->mu);
  auto it = impl_->session_runs.find(session_id);
  if (it == impl_->session_runs.end() || it->second.empty()) return std::nullopt;  // empty: being accepted
  return it->second;
}

size_t RunService::active_count() const {
  std::lock_guard lock(impl_->mu);
  return impl_->runs.size();
}

size_t RunService::queued_count() const {
  std::lock_guard lock(impl_->mu);
  return static_cast<size_t>(std::count_if(impl_->runs.begin(), impl_->runs.end(),
                                           [](const auto& r) { return r.second->phase == RunPhase::kQueued; }));
}

size_t RunService::workers() const { return std::max<size_t>(1, impl_->options.workers); }

const std::string& RunService::workspace() const { return impl_->options.workspace; }

bool RunService::shares_queue() const { return !impl_->options.exclusive; }

bool RunService::stopping() const {
  std::lock_guard lock(impl_->mu);
  return impl_->stopping;
}

void RunService::shutdown() {
  std::unique_lock lock(impl_->mu);
  if (impl_->stopping && !impl_->pool) return;
  impl_->stopping = true;
  for (auto& [id, run] : impl_->runs) {
    if (run->phase == RunPhase::kRunning) {
      run->park = static_cast<int>(ParkReason::kShutdown);
      run->stop.request_stop();
    }
  }
  impl_->idle_cv.wait_for(lock, std::chrono::milliseconds(impl_->options.shutdown_grace_ms),
                          [&] { return impl_->executing == 0; });
  std::unique_ptr<detail::ThreadPool> pool = std::move(impl_->pool);
  lock.unlock();
  pool.reset();  // queued runs are dropped here; their checkpoints bring them back on the next start
  impl_->controls_watch.reset();
  if (impl_->keeper.joinable()) {
    impl_->keeper.request_stop();
    impl_->keeper.join();
  }
  // What this instance held goes back to the queue at once: another instance (or the next start)
  // takes it up without waiting for the leases to run out.
  Status released = impl_->store.release_server_runs(impl_->options.workspace, impl_->lease.owner);
  if (!released.ok()) {
    impl_->note("cannot hand this instance's runs back to the queue (they are taken up when their leases run out): " +
                released.message());
  }
}

const std::string& RunService::instance() const { return impl_->lease.owner; }

}  // namespace keel::api
