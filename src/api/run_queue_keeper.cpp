// RunService's part in the run queue it shares with other instances on the same database: taking
// up runs left behind (at start, and while it serves when it is not alone), renewing the leases on
// the runs it holds, and stopping the runs whose leases it lost.
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "api/run_service_impl.hpp"

namespace keel::api {

void RunService::Impl::note(const std::string& line) const {
  if (options.notice) options.notice(line);
}

size_t RunService::Impl::free_workers_locked() const {
  size_t busy = static_cast<size_t>(std::count_if(runs.begin(), runs.end(), [](const auto& r) {
    return r.second->phase == RunPhase::kQueued || r.second->phase == RunPhase::kRunning;
  }));
  size_t workers = std::max<size_t>(1, options.workers);
  return busy >= workers ? 0 : workers - busy;
}

size_t RunService::Impl::claim(size_t limit) {
  if (limit == 0) return 0;
  const auto lease_length = std::chrono::milliseconds(lease.duration_ms);
  if (std::chrono::steady_clock::now() - in_contact_since < lease_length) return 0;
  Result<std::vector<ServerCheckpoint>> claimed = [&] {
    // A claim that waited out an outage would act on leases that ran out while no one could renew.
    StoreOutageWaitOff now_or_never;
    return store.claim_server_runs(options.workspace, lease, limit);
  }();
  if (!claimed.ok()) {
    note("cannot take up runs from the queue: " + claimed.status().message());
    return 0;
  }
  // The runs' records are read before the service's lock is taken.
  std::vector<std::pair<ServerCheckpoint, Result<RunRecord>>> found;
  for (ServerCheckpoint& c : *claimed) {
    Result<RunRecord> record = store.get_run(c.run_id);
    found.emplace_back(std::move(c), std::move(record));
  }
  size_t taken = 0;
  std::vector<std::string> adopted;
  std::unique_lock lock(mu);
  for (auto& [c, record] : found) {
    if (runs.count(c.run_id) != 0) continue;  // already here (this instance's lease had run out)
    if (!record.ok() || run_state_is_terminal(record->state)) {
      (void)store.delete_server_checkpoint(c.run_id);  // ended before its checkpoint was removed
      continue;
    }
    auto run = std::make_shared<ActiveRun>();
    run->id = c.run_id;
    run->session_id = c.session_id;
    run->task = record->task;
    run->settings = settings_from_json(c.settings);
    // Let go (its instance stopped, or this one restarted) or taken over (its instance died).
    run->resumed_because = c.owner.empty() || c.owner == lease.owner ? "restart" : "takeover";
    run->calls_not_started = c.waiting == "approval" || c.waiting == "answer";
    run->held_since = std::chrono::steady_clock::now();
    runs[run->id] = run;
    session_runs[run->session_id] = run->id;
    if (stopping) continue;  // handed back by shutdown()
    enqueue_locked(run);
    adopted.push_back(run->id);
    ++taken;
  }
  lock.unlock();
  // What was asked of them while no live instance held them (a queued abort ends the run at once).
  if (!options.exclusive) {
    for (const std::string& id : adopted) apply_controls(id);
  }
  return taken;
}

void RunService::Impl::renew() {
  const auto asked = std::chrono::steady_clock::now();
  Result<std::vector<std::string>> held = store.renew_server_leases(lease);
  if (!held.ok()) {
    note("cannot renew this instance's leases on its runs: " + held.status().message());
    return;
  }
  const auto renewed = std::chrono::steady_clock::now();
  // Renewals come every third of a lease; one more than half a lease after the last means contact
  // was broken long enough for others' leases to run out unrenewed.
  if (renewed - last_renewed > std::chrono::milliseconds(lease.duration_ms / 2)) in_contact_since = renewed;
  last_renewed = renewed;
  std::vector<std::string> unknown;  // held in the database, not here: ended, or being accepted
  {
    std::lock_guard lock(mu);
    for (const std::string& id : *held) {
      if (runs.count(id) == 0) unknown.push_back(id);
    }
  }
  // A run that ended while the database was away may have left its checkpoint behind.
  for (const std::string& id : unknown) {
    Result<RunRecord> stored = store.get_run(id);
    if (stored.ok() && run_state_is_terminal(stored->state)) (void)store.delete_server_checkpoint(id);
  }
  std::lock_guard lock(mu);
  std::vector<std::shared_ptr<ActiveRun>> lost;
  for (const auto& [id, run] : runs) {
    if (run->held_since >= asked || run->lost) continue;  // accepted or claimed after the renewal began
    if (!std::binary_search(held->begin(), held->end(), id)) lost.push_back(run);
  }
  for (const auto& run : lost) {
    note("run " + run->id +
         " was taken over by another instance (this one did not renew its lease in time); "
         "stopping it here");
    run->lost = true;
    if (run->phase == RunPhase::kRunning) {
      run->park = static_cast<int>(ParkReason::kShutdown);
      run->stop.request_stop();  // the worker forgets it once it stops
    } else {
      forget_locked(run);  // queued (the worker skips it) or parked
    }
  }
}

void RunService::Impl::keep(std::stop_token stop) {
  using Clock = std::chrono::steady_clock;
  const auto renew_every = std::chrono::milliseconds(std::max<int64_t>(1, lease.duration_ms / 3));
  const auto claim_every = std::chrono::milliseconds(std::max<int64_t>(1, options.claim_interval_ms));
  auto next_renew = Clock::now() + renew_every;
  auto next_claim = Clock::now() + claim_every;
  last_renewed = Clock::now();  // the database was just reached (the store is open)
  in_contact_since = last_renewed - std::chrono::milliseconds(lease.duration_ms);
  std::unique_lock lock(mu);
  while (!stop.stop_requested()) {
    keeper_cv.wait_until(lock, stop, std::min(next_renew, next_claim), [&] { return claim_again; });
    if (stop.stop_requested() || stopping) break;
    const bool claim_now = std::exchange(claim_again, false) || Clock::now() >= next_claim;
    const size_t free = free_workers_locked();
    lock.unlock();
    if (Clock::now() >= next_renew) {
      renew();
      next_renew = Clock::now() + renew_every;
    }
    const size_t taken = claim_now ? claim(free) : 0;
    if (claim_now) next_claim = Clock::now() + claim_every;
    lock.lock();
    // A claim that filled every free worker may have left more behind: look again at once.
    if (claim_now) claim_again = free > 0 && taken == free;
  }
}

bool RunService::Impl::held_elsewhere(const std::string& run_id, const Result<RunRecord>& stored) const {
  if (options.exclusive || !stored.ok() || run_state_is_terminal(stored->state)) return false;
  std::lock_guard lock(mu);
  return runs.count(run_id) == 0;
}

Status RunService::Impl::forward(const std::string& run_id, std::string_view kind, const nlohmann::json& body) {
  ServerControl control;
  control.run_id = run_id;
  control.kind = std::string(kind);
  control.body = body.dump();
  return store.send_server_control(control);
}

void RunService::Impl::apply_controls(const std::string& run_id) {
  if (run_id.empty()) {  // the watch was interrupted: look for every run here
    std::vector<std::string> here;
    {
      std::lock_guard lock(mu);
      for (const auto& [id, run] : runs) here.push_back(id);
    }
    for (const std::string& id : here) apply_controls(id);
    return;
  }
  if (!find(run_id)) return;  // another instance's
  Result<std::vector<ServerControl>> taken = store.take_server_controls(run_id);
  if (!taken.ok()) {
    note("cannot read what was asked of run " + run_id + ": " + taken.status().message());
    return;
  }
  for (const ServerControl& c : *taken) {
    nlohmann::json body = nlohmann::json::parse(c.body, nullptr, false);
    if (!body.is_object()) body = nlohmann::json::object();
    const std::string item = body.value("id", "");
    Status done;
    if (c.kind == "abort") {
      done = abort_here(run_id, store.get_run(run_id));
    } else if (c.kind == "steer") {
      done = steer_here(run_id, store.get_run(run_id), body.value("content", ""));
    } else if (c.kind == "decide") {
      // The verdict travels by its name (approval_verdict_name); anything else denies.
      ApprovalVerdict verdict = ApprovalVerdict::kDeny;
      for (ApprovalVerdict v : {ApprovalVerdict::kAllow, ApprovalVerdict::kAllowAlways}) {
        if (approval_verdict_name(v) == body.value("verdict", "")) verdict = v;
      }
      done = pending.decide(item, verdict, body.value("reason", ""));
    } else if (c.kind == "answer") {
      UserAnswer answer;
      answer.text = body.value("text", "");
      if (body.contains("option_index") && body["option_index"].is_number_unsigned()) {
        answer.option_index = body["option_index"].get<size_t>();
      }
      // The event the answering instance would publish for a question of its own.
      nlohmann::json event = {{"question_id", item}};
      if (answer.option_index) event["option_index"] = *answer.option_index;
      std::string shown;
      done = pending.answer(item, std::move(answer), &shown);
      event["answer"] = shown;
      if (done.ok()) {
        if (std::shared_ptr<ActiveRun> run = find(run_id)) publish(*run, "question_answered", std::move(event));
      }
    } else {
      done = Status::InvalidArgument("unknown kind '" + c.kind + "'");
    }
    if (!done.ok())
      note("run " + run_id + ": what another instance passed on (" + c.kind + ") failed: " + done.message());
  }
}

Result<size_t> RunService::recover() {
  // A process serving the workspace alone takes everything left behind; among several, an
  // instance takes back what its own id held (it restarted) and what no live lease holds.
  const std::string owner = impl_->options.exclusive ? "" : impl_->lease.owner;
  KEEL_TRY(impl_->store.release_server_runs(impl_->options.workspace, owner));
  size_t limit = SIZE_MAX;
  if (!impl_->options.exclusive) {
    std::lock_guard lock(impl_->mu);
    limit = impl_->free_workers_locked();
  }
  size_t taken = impl_->claim(limit);
  if (impl_->options.exclusive) return taken;
  std::weak_ptr<Impl> self = impl_->weak_from_this();
  if (!impl_->controls_watch) {
    Result<std::unique_ptr<StoreWatch>> watch = impl_->store.watch_server_controls([self](const std::string& run_id) {
      if (auto impl = self.lock()) impl->apply_controls(run_id);
    });
    if (!watch.ok()) return watch.status();
    impl_->controls_watch = std::move(watch).value();
    impl_->apply_controls("");  // left while no instance held them
  }
  std::lock_guard lock(impl_->mu);
  if (!impl_->keeper.joinable() && !impl_->stopping) {
    impl_->keeper = std::jthread([self](std::stop_token stop) {
      if (auto impl = self.lock()) impl->keep(stop);
    });
  }
  return taken;
}

}  // namespace keel::api
