// The approval side of keel::Agent: asking the approver about what the policy gate left open,
// logging what the gate decided on its own (as the machine's decisions report it), and
// remembering standing answers per workspace.
#include <algorithm>
#include <optional>

#include "runtime/agent_impl.hpp"

namespace keel {

Event Agent::Impl::ask_approval(RunContext& ctx, const AskApproval& ask, detail::SessionRecorder* recorder,
                                std::stop_token stop) {
  set_status(ctx, RunStatus::kWaitingApproval);
  if (recorder != nullptr) recorder->set_state(RunState::kWaitingApproval);
  std::vector<ApprovalDecision> given;
  auto decided = [&](const ApprovalRequest& r, ApprovalDecision d) {
    emit([&](Hooks& h) { h.on_approval_decided(ctx, r, d); });
    if (recorder != nullptr) recorder->approval_decided(r, d);  // also saves an "allow always" for the workspace
    if (d.verdict == ApprovalVerdict::kAllowAlways) {
      if (auto g = gate()) (void)g->remember({options_.workspace, r.call.name, "", ApprovalVerdict::kAllow, 0});
    }
    given.push_back(std::move(d));
  };
  // Hooks may answer first (on_permission_request); the approver is asked about the rest. Each
  // request shows the call as hooks rewrote it, which is the call that runs.
  std::vector<ApprovalRequest> open;
  for (const auto& asked : ask.requests) {
    ApprovalRequest r = asked;
    r.call = rewritten(asked.call);
    std::optional<ApprovalDecision> by_hook;
    emit([&](Hooks& h) { h.on_permission_request(ctx, r, by_hook); });
    if (!by_hook) {
      open.push_back(std::move(r));
      continue;
    }
    by_hook->call_id = r.call.id;
    if (by_hook->verdict == ApprovalVerdict::kAllowAlways) by_hook->verdict = ApprovalVerdict::kAllow;  // not remembered
    decided(r, std::move(*by_hook));
  }
  for (const auto& r : open) emit([&](Hooks& h) { h.on_approval_requested(ctx, r); });
  // The policy gate already applied patterns and remembered decisions: only calls it could not
  // decide are here.
  std::vector<ApprovalDecision> decisions;
  if (approver && !open.empty()) decisions = approver->decide(open, stop);
  if (stop.stop_requested()) return Aborted{"interrupted while waiting for approval"};
  for (const auto& r : open) {
    auto it = std::find_if(decisions.begin(), decisions.end(), [&](const ApprovalDecision& d) { return d.call_id == r.call.id; });
    ApprovalDecision d{r.call.id, ApprovalVerdict::kDeny,
                       approver ? "no approval decision was given" : "approval is required and this host has no way to ask"};
    if (it != decisions.end()) d = *it;
    decided(r, std::move(d));
  }
  if (recorder != nullptr) recorder->set_state(RunState::kRunning);
  return ApprovalsGiven{std::move(given)};
}

void Agent::Impl::log_gate_decisions(RunContext& ctx, const Decision& decision, detail::SessionRecorder* recorder) {
  if (!gate()) return;  // a gate the application put in AgentConfig keeps its own records
  for (const GateDecision& g : decision.gate_decisions) {
    ApprovalRequest r{g.call, g.risk, g.reason};
    ApprovalDecision d{r.call.id, g.verdict, g.reason};
    emit([&](Hooks& h) { h.on_approval_decided(ctx, r, d); });
    if (recorder != nullptr) recorder->approval_decided(r, d);
  }
}

Status Agent::Impl::remember_approval(ApprovalRule rule) {
  rule.workspace = options_.workspace;
  detail::SavedRules validation;  // the checks the gate applies, also when no run is in progress
  KEEL_TRY(validation.add(rule));
  if (auto g = gate()) KEEL_TRY(g->remember(rule));
  if (options_.store != nullptr) return options_.store->add_approval_rule(rule);
  return Status::Ok();
}

Status Agent::remember_approval(std::string_view tool, std::string_view pattern, ApprovalVerdict verdict) {
  return impl_->remember_approval({{}, std::string(tool), std::string(pattern), verdict, 0});
}

}  // namespace keel
