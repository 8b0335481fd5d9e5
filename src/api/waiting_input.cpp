#include "api/waiting_input.hpp"

#include <utility>

#include "core/text/text_util.hpp"

namespace keel::api {
namespace {

class SharedWaitingApprover final : public Approver {
 public:
  explicit SharedWaitingApprover(std::shared_ptr<WaitingInput> input) : input_(std::move(input)) {}
  std::vector<ApprovalDecision> decide(const std::vector<ApprovalRequest>& requests, std::stop_token stop) override {
    return input_->decide(requests, std::move(stop));
  }

 private:
  std::shared_ptr<WaitingInput> input_;
};

}  // namespace

WaitingInput::WaitingInput(PendingInput& pending, std::shared_ptr<ForwardingAsker> asker,
                           std::chrono::milliseconds timeout, QuestionShown on_question)
    : pending_(pending), asker_(std::move(asker)), timeout_(timeout), on_question_(std::move(on_question)) {}

WaitingInput::~WaitingInput() { stop_routing(); }

void WaitingInput::on_run_started(RunContext& ctx) {
  run_id_ = ctx.run_id;
  session_id_ = ctx.session_id;
  if (asker_ == nullptr || ctx.run_id.empty()) return;
  routed_ = true;
  // The asker outlives this object only through the route, which holds a weak reference.
  asker_->route(ctx.run_id, [self = weak_from_this()](const UserQuestion& q, std::stop_token stop) -> Result<UserAnswer> {
    auto input = self.lock();
    if (!input) return Status::FailedPrecondition("no one can answer: the run has ended");
    return input->ask(q, std::move(stop));
  });
}

void WaitingInput::on_approval_requested(RunContext& ctx, const ApprovalRequest& request) {
  pending_.expect_approval(ctx.run_id, ctx.session_id, request);
}

void WaitingInput::stop_routing() {
  if (!routed_) return;
  asker_->unroute(run_id_);
  routed_ = false;
}

std::unique_ptr<Approver> WaitingInput::approver() {
  return std::make_unique<SharedWaitingApprover>(shared_from_this());
}

std::string WaitingInput::why_not(const std::stop_token& stop) const {
  if (stop.stop_requested()) return "the run was stopped before anyone answered";
  const int64_t ms = timeout_.count();
  return "no one answered within " + (ms % 1000 != 0 ? std::to_string(ms) + " ms" : std::to_string(ms / 1000) + " s");
}

std::vector<ApprovalDecision> WaitingInput::decide(const std::vector<ApprovalRequest>& requests, std::stop_token stop) {
  if (auto decided = pending_.wait_decisions(run_id_, session_id_, requests, stop, timeout_)) return *decided;
  const std::string reason = "denied: " + why_not(stop) + "; the call did not run";
  std::vector<ApprovalDecision> out;
  out.reserve(requests.size());
  for (const ApprovalRequest& r : requests) out.push_back(ApprovalDecision{r.call.id, ApprovalVerdict::kDeny, reason});
  return out;
}

Result<UserAnswer> WaitingInput::ask(const UserQuestion& question, std::stop_token stop) {
  if (auto answer = pending_.take_answer(question)) return *answer;  // registers it before it is shown
  if (on_question_) on_question_(PendingInput::item_id(question.run_id, question.call_id), question);
  if (auto answer = pending_.wait_answer(question, stop, timeout_)) return *answer;
  return Status::DeadlineExceeded("the question was not answered: " + why_not(stop));
}

}  // namespace keel::api
