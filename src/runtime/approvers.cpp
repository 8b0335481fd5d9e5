#include "keel/approver.hpp"

namespace keel {
namespace {

class FixedApprover final : public Approver {
 public:
  FixedApprover(ApprovalVerdict verdict, std::string reason) : verdict_(verdict), reason_(std::move(reason)) {}
  std::vector<ApprovalDecision> decide(const std::vector<ApprovalRequest>& requests, std::stop_token) override {
    std::vector<ApprovalDecision> out;
    for (const auto& r : requests) out.push_back({r.call.id, verdict_, reason_});
    return out;
  }

 private:
  ApprovalVerdict verdict_;
  std::string reason_;
};

}  // namespace

std::unique_ptr<Approver> make_approve_all(std::string reason) {
  return std::make_unique<FixedApprover>(ApprovalVerdict::kAllow, std::move(reason));
}

std::unique_ptr<Approver> make_deny_all(std::string reason) {
  return std::make_unique<FixedApprover>(ApprovalVerdict::kDeny, std::move(reason));
}

}  // namespace keel
