#include "api/waiting_approver.hpp"

#include <utility>

#include "core/text/text_util.hpp"

namespace keel::api {
namespace {

class SharedWaitingApprover final : public Approver {
 public:
  explicit SharedWaitingApprover(std::shared_ptr<WaitingApprovals> approvals) : approvals_(std::move(approvals)) {}
  std::vector<ApprovalDecision> decide(const std::vector<ApprovalRequest>& requests, std::stop_token stop) override {
    return approvals_->decide(requests, std::move(stop));
  }

 private:
  std::shared_ptr<WaitingApprovals> approvals_;
};

}  // namespace

void WaitingApprovals::on_run_started(RunContext& ctx) {
  run_id_ = ctx.run_id;
  session_id_ = ctx.session_id;
}

std::unique_ptr<Approver> WaitingApprovals::approver() {
  return std::make_unique<SharedWaitingApprover>(shared_from_this());
}

std::vector<ApprovalDecision> WaitingApprovals::decide(const std::vector<ApprovalRequest>& requests,
                                                       std::stop_token stop) {
  if (auto decided = pending_.wait_decisions(run_id_, session_id_, requests, stop, timeout_)) return *decided;
  const std::string reason =
      stop.stop_requested()
          ? std::string("denied: the run was stopped before anyone decided")
          : detail::concat({"denied: no one decided within ",
                            std::to_string(std::chrono::duration_cast<std::chrono::seconds>(timeout_).count()),
                            " s; the call did not run"});
  std::vector<ApprovalDecision> out;
  out.reserve(requests.size());
  for (const ApprovalRequest& r : requests) out.push_back(ApprovalDecision{r.call.id, ApprovalVerdict::kDeny, reason});
  return out;
}

}  // namespace keel::api
