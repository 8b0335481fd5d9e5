#include "acp/permission_approver.hpp"

#include "acp/session_updates.hpp"

namespace keel::acp {
namespace {

using nlohmann::json;

class PermissionApprover final : public Approver {
 public:
  PermissionApprover(JsonRpcPeer& peer, std::string session_id, std::chrono::milliseconds timeout)
      : peer_(peer), session_id_(std::move(session_id)), timeout_(timeout) {}

  std::vector<ApprovalDecision> decide(const std::vector<ApprovalRequest>& requests, std::stop_token stop) override {
    std::vector<ApprovalDecision> decisions;
    for (const ApprovalRequest& r : requests) decisions.push_back(ask(r, stop));
    return decisions;
  }

 private:
  ApprovalDecision ask(const ApprovalRequest& r, std::stop_token stop) {
    ApprovalDecision d{r.call.id, ApprovalVerdict::kDeny, ""};
    if (stop.stop_requested()) {
      d.reason = "the turn was cancelled";
      return d;
    }
    const json options = json::array({
        {{"optionId", "allow_once"}, {"name", "Allow"}, {"kind", "allow_once"}},
        {{"optionId", "allow_always"}, {"name", "Allow " + r.call.name + " for the rest of this turn"}, {"kind", "allow_always"}},
        {{"optionId", "reject_once"}, {"name", "Deny"}, {"kind", "reject_once"}},
    });
    json params = {{"sessionId", session_id_}, {"toolCall", tool_call_json(r.call)}, {"options", options}};
    if (!r.reason.empty()) params["_meta"] = {{"keel", {{"reason", r.reason}, {"risk", risk_name(r.risk)}}}};
    Result<json> answer = peer_.request("session/request_permission", std::move(params), stop, timeout_);
    if (!answer.ok()) {
      d.reason = stop.stop_requested() ? "the turn was cancelled" : "not approved: " + answer.status().message();
      return d;
    }
    const json outcome = answer->is_object() ? answer->value("outcome", json()) : json();
    const std::string kind = outcome.is_object() ? outcome.value("outcome", "") : "";
    const std::string option = outcome.is_object() ? outcome.value("optionId", "") : "";
    if (kind == "selected" && option == "allow_once") {
      d.verdict = ApprovalVerdict::kAllow;
      d.reason = "approved in the editor";
    } else if (kind == "selected" && option == "allow_always") {
      d.verdict = ApprovalVerdict::kAllowAlways;
      d.reason = "approved in the editor for the rest of the turn";
    } else if (kind == "selected" && option == "reject_once") {
      d.reason = "denied by the user";
    } else if (kind == "cancelled") {
      d.reason = "the turn was cancelled";
    } else {
      d.reason = "not approved: the editor answered with an unknown choice";
    }
    return d;
  }

  JsonRpcPeer& peer_;
  std::string session_id_;
  std::chrono::milliseconds timeout_;
};

}  // namespace

std::unique_ptr<Approver> make_permission_approver(JsonRpcPeer& peer, std::string session_id,
                                                   std::chrono::milliseconds timeout) {
  return std::make_unique<PermissionApprover>(peer, std::move(session_id), timeout);
}

}  // namespace keel::acp
