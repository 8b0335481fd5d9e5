// api/waiting_input.hpp — a person's input for a run whose client holds the connection open
// (AG-UI): the run's thread waits until someone decides its approvals through /api/approvals and
// answers its ask_user questions through /api/questions (the web UI, or any client with the
// server's token), instead of parking as /api runs do.
//
//   auto input = std::make_shared<WaitingInput>(pending, asker, std::chrono::minutes(10), on_question);
//   agent.add_hooks(input);                 // learns the run's ids when it starts
//   agent.set_approver(input->approver());
//
// Approvals wait under the id PendingInput::item_id(run id, call id), questions likewise, listed by
// GET /api/approvals and /api/questions like a parked run's. `asker` (keel serve's, which ask_user
// calls) routes this run's questions here while it runs; `on_question` hears each question with
// its id, so the host can show it. No answer within the timeout, or the run stopped (the client
// left): calls are denied and a question is an error, with a reason the model reads, and the run's
// pending items are dropped.
//
// Thread-safety: the hooks and the approver are called from the run's thread; questions come from
// the tool's thread while the run's waits.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "api/pending_input.hpp"
#include "api/run_service.hpp"
#include "keel/approver.hpp"
#include "keel/hooks.hpp"

namespace keel::api {

class WaitingInput final : public Hooks, public std::enable_shared_from_this<WaitingInput> {
 public:
  using QuestionShown = std::function<void(const std::string& question_id, const UserQuestion& question)>;
  // `asker` may be null: then ask_user questions are not routed here.
  WaitingInput(PendingInput& pending, std::shared_ptr<ForwardingAsker> asker, std::chrono::milliseconds timeout,
               QuestionShown on_question = {});
  ~WaitingInput() override;

  void on_run_started(RunContext& ctx) override;
  // Registers the approval before anyone is told of it (add these hooks before the ones that tell).
  void on_approval_requested(RunContext& ctx, const ApprovalRequest& request) override;
  void on_run_finished(RunContext&, const RunOutcome&) override { stop_routing(); }
  void on_run_failed(RunContext&, const RunOutcome&) override { stop_routing(); }

  // The approver to give the agent; it shares this object.
  std::unique_ptr<Approver> approver();
  std::vector<ApprovalDecision> decide(const std::vector<ApprovalRequest>& requests, std::stop_token stop);
  Result<UserAnswer> ask(const UserQuestion& question, std::stop_token stop);

 private:
  void stop_routing();
  std::string why_not(const std::stop_token& stop) const;

  PendingInput& pending_;
  std::shared_ptr<ForwardingAsker> asker_;
  std::chrono::milliseconds timeout_;
  QuestionShown on_question_;
  std::string run_id_;
  std::string session_id_;
  bool routed_ = false;  // the asker sends run_id_'s questions here
};

}  // namespace keel::api
