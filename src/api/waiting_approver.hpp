// api/waiting_approver.hpp — approvals for a run whose client holds the connection open (AG-UI):
// the run's thread waits until a person decides through /api/approvals (the web UI, or any client
// with the server's token), instead of parking as /api runs do.
//
//   auto approvals = std::make_shared<WaitingApprovals>(pending, std::chrono::minutes(10));
//   agent.add_hooks(approvals);                 // learns the run's ids when it starts
//   agent.set_approver(approvals->approver());
//
// Each call waits under the approval id PendingInput::item_id(run id, call id), listed by
// GET /api/approvals like a parked run's. No decision within the timeout, or the run stopped
// (the client left): every call of the batch is denied with a reason the model reads, and the
// run's pending items are dropped.
//
// Thread-safety: the hooks and the approver are called from the run's thread.
#pragma once

#include <chrono>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "api/pending_input.hpp"
#include "keel/approver.hpp"
#include "keel/hooks.hpp"

namespace keel::api {

class WaitingApprovals final : public Hooks, public std::enable_shared_from_this<WaitingApprovals> {
 public:
  WaitingApprovals(PendingInput& pending, std::chrono::milliseconds timeout) : pending_(pending), timeout_(timeout) {}

  void on_run_started(RunContext& ctx) override;
  // The approver to give the agent; it shares this object.
  std::unique_ptr<Approver> approver();
  std::vector<ApprovalDecision> decide(const std::vector<ApprovalRequest>& requests, std::stop_token stop);

 private:
  PendingInput& pending_;
  std::chrono::milliseconds timeout_;
  std::string run_id_;
  std::string session_id_;
};

}  // namespace keel::api
