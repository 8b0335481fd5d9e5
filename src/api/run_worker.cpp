// The worker side of RunService: executing one run (new or resumed) with a fresh Agent from the
// factory, streaming its events, parking it when it needs a person, and settling it afterwards.
#include <chrono>
#include <utility>

#include "api/run_service_impl.hpp"
#include "base/clock.hpp"
#include "keel/approver.hpp"
#include "runtime/run_event_json.hpp"

namespace keel::api {
namespace {

// A run's hooks as server events (docs/events.md plus docs/server.md's additions), and the place
// where guidance queued for the run reaches its agent.
class RunEvents final : public detail::RunEventJson {
 public:
  RunEvents(RunService::Impl& service, std::shared_ptr<ActiveRun> run)
      : RunEventJson([this](std::string_view type, nlohmann::json body, const RunContext* ctx) { send(type, std::move(body), ctx); },
                     true),
        service_(service),
        run_(std::move(run)) {}

  void on_status_changed(RunContext& ctx, RunStatus status) override {
    RunEventJson::on_status_changed(ctx, status);
    std::lock_guard lock(service_.mu);
    if (run_->agent == nullptr) return;
    for (std::string& text : run_->steering) run_->agent->steer(std::move(text));
    run_->steering.clear();
  }

 private:
  void send(std::string_view type, nlohmann::json body, const RunContext* ctx) {
    // A run that is parking ends its round early: results of calls stopped on the way (ask_user
    // waiting for its answer) are not kept, and the calls run again when it resumes.
    if (type == "tool_result" && run_->park.load() != static_cast<int>(ParkReason::kNone)) return;
    nlohmann::json data = {{"v", 1}, {"type", type}, {"run_id", run_->id}};
    if (ctx != nullptr && ctx->round > 0) {
      data["round"] = ctx->round;
      run_->round = ctx->round;
    }
    data["t_ms"] = detail::ms_since(start_);
    for (auto it = body.begin(); it != body.end(); ++it) data[it.key()] = std::move(it.value());
    if (type == "approval_requested") {
      data["approval_id"] = PendingInput::item_id(run_->id, data["call"].value("id", ""));
    }
    service_.events.publish(run_->session_id, run_->id, type, std::move(data));
  }

  RunService::Impl& service_;
  std::shared_ptr<ActiveRun> run_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Answers from what a person decided through the API, or parks the run until they do.
class ParkingApprover final : public Approver {
 public:
  ParkingApprover(RunService::Impl& service, std::shared_ptr<ActiveRun> run) : service_(service), run_(std::move(run)) {}
  std::vector<ApprovalDecision> decide(const std::vector<ApprovalRequest>& requests, std::stop_token) override {
    if (auto decided = service_.pending.take_decisions(run_->id, run_->session_id, requests)) return *decided;
    service_.park(run_, ParkReason::kApproval);
    return {};
  }

 private:
  RunService::Impl& service_;
  std::shared_ptr<ActiveRun> run_;
};

std::string_view park_name(ParkReason reason) {
  switch (reason) {
    case ParkReason::kApproval: return "waiting_approval";
    case ParkReason::kAnswer: return "waiting_answer";
    case ParkReason::kShutdown: return "shutdown";
    case ParkReason::kNone: break;
  }
  return "none";
}

}  // namespace

void RunService::Impl::park(const std::shared_ptr<ActiveRun>& run, ParkReason reason) {
  std::lock_guard lock(mu);
  if (run->abort_requested) return;  // the stop is already on its way; the run ends aborted
  run->park = static_cast<int>(reason);
  run->stop.request_stop();
}

Result<UserAnswer> RunService::Impl::ask(const UserQuestion& question, std::stop_token) {
  std::shared_ptr<ActiveRun> run = find(question.run_id);
  if (!run) return Status::FailedPrecondition("no one can answer: this run is not one of the server's");
  if (std::optional<UserAnswer> answer = pending.take_answer(question)) return *answer;
  nlohmann::json body = {{"question_id", PendingInput::item_id(run->id, question.call_id)},
                         {"question", question.question},
                         {"options", question.options},
                         {"allow_free_text", question.allow_free_text}};
  if (run->round > 0) body["round"] = run->round.load();
  // The question goes out before the stop: the stop can end the run (run_suspended) before this
  // call returns, and a client must see the question first. Parking still comes before the
  // tool's result on the way out, so that result is not reported.
  publish(*run, "question", std::move(body));
  park(run, ParkReason::kAnswer);
  return Status::Cancelled("the run waits for the user's answer");
}

void RunService::Impl::execute(const std::shared_ptr<ActiveRun>& run) {
  {
    std::lock_guard lock(mu);
    if (run->abort_requested) {
      abort_idle_locked(run, "aborted by the user before it started");
      return;
    }
    if (stopping || run->lost) return;  // checkpointed; resumed on the next start or by its new holder
    run->phase = RunPhase::kRunning;
    ++executing;
  }
  auto done_executing = [&] {
    --executing;
    idle_cv.notify_all();
  };
  std::weak_ptr<ActiveRun> weak = run;
  Result<std::unique_ptr<AgentLease>> lease = factory.make(run->settings, [weak] {
    auto r = weak.lock();
    return r && r->park.load() != static_cast<int>(ParkReason::kNone);
  });
  if (!lease.ok()) {
    std::lock_guard lock(mu);
    RunUpdate u;
    u.state = RunState::kFailed;
    u.error = lease.status().message();
    (void)store.update_run(run->id, u);
    publish(*run, "run_failed", {{"kind", "usage"}, {"error", *u.error}, {"exit_code", 2}, {"session_id", run->session_id}});
    retire_locked(run);
    done_executing();
    return;
  }
  Agent& agent = *(*lease)->agent;
  agent.add_hooks(std::make_shared<RunEvents>(*this, run));
  agent.set_approver(std::make_shared<ParkingApprover>(*this, run));
  std::stop_token stop;
  {
    std::lock_guard lock(mu);
    run->agent = &agent;
    stop = run->stop.get_token();
    if (!run->resumed_because.empty()) publish(*run, "run_resumed", {{"reason", run->resumed_because}});
  }
  ResumeOptions resume;
  {
    std::lock_guard lock(mu);
    resume.calls_not_started = std::exchange(run->calls_not_started, false);
  }
  Result<RunOutcome> outcome = agent.resume(run->id, stop, resume);

  std::lock_guard lock(mu);
  run->agent = nullptr;
  auto reason = static_cast<ParkReason>(run->park.exchange(static_cast<int>(ParkReason::kNone)));
  if (run->lost) {
    forget_locked(run);  // another instance holds it now: it reports and settles the run
  } else if (!outcome.ok()) {
    // It could not start (its stored state is not resumable): report and forget it.
    publish(*run, "run_failed", {{"kind", "internal"}, {"error", outcome.status().message()}, {"exit_code", 3},
                                 {"session_id", run->session_id}});
    retire_locked(run);
  } else if (outcome->suspended && run->abort_requested) {
    abort_idle_locked(run, "aborted by the user");
  } else if (outcome->suspended) {
    run->stop = std::stop_source();
    publish(*run, "run_suspended", {{"reason", park_name(reason)}});
    if (reason == ParkReason::kShutdown) {
      run->phase = RunPhase::kQueued;  // checkpointed as running: the next start resumes it
    } else {
      run->phase = reason == ParkReason::kApproval ? RunPhase::kWaitingApproval : RunPhase::kWaitingAnswer;
      run->calls_not_started = true;
      ServerCheckpoint c;
      c.run_id = run->id;
      c.session_id = run->session_id;
      c.settings = settings_json(run->settings).dump();
      c.waiting = reason == ParkReason::kApproval ? "approval" : "answer";
      {
        StoreOutageWaitOff quick;  // under the service's lock (see retire_locked)
        (void)store.put_server_checkpoint(c);
      }
      if (run->resume_when_parked || !pending.waiting(run->id)) {
        run->resume_when_parked = false;
        run->resumed_because = reason == ParkReason::kApproval ? "approval_decided" : "question_answered";
        if (!stopping) enqueue_locked(run);
      }
    }
  } else {
    retire_locked(run);  // finished or failed; its last event is already out
  }
  done_executing();
}

}  // namespace keel::api
