// Screening the calls of a round before anything runs: the core's guards (unknown tool, unusable
// arguments, a disabled or duplicate call), then the approval gate's verdict (run, ask the host,
// refuse; what it settled on its own is reported in Decision::gate_decisions), and the answers
// the host gives back for the calls it was asked about.
#include <algorithm>

#include "core/guards/call_signature.hpp"
#include "core/loop/risk_verdict.hpp"
#include "core/text/text_util.hpp"
#include "keel/core/agent_machine.hpp"

namespace keel {
namespace {

using detail::shorten;

ToolResult synthetic(const ToolCall& call, ToolStatus status, std::string content) {
  ToolResult r;
  r.call_id = call.id;
  r.name = call.name;
  r.status = status;
  r.content = std::move(content);
  return r;
}

}  // namespace

Decision AgentMachine::ask_or_dispatch() {
  AskApproval ask;
  for (const auto& pc : round_calls_) {
    if (pc.state != PendingCall::State::kApprove) continue;
    ask.requests.push_back({pc.call, pc.spec->risk, pc.approval_reason});
  }
  if (!ask.requests.empty()) {
    phase_ = AgentPhase::kAwaitingApproval;
    return decide(std::move(ask));
  }
  return dispatch_tools();
}

void AgentMachine::classify_call(size_t index) {
  PendingCall& pc = round_calls_[index];
  const ToolCall& call = pc.call;
  pc.spec = find_tool(call.name);
  if (pc.spec == nullptr) {
    std::string names;
    for (const auto& t : tools_) names += (names.empty() ? "" : ", ") + t.name;
    guards_.push_back({GuardKind::kMalformedCall, "unknown tool '" + call.name + "'", call.name, call.id});
    pc.result = synthetic(call, ToolStatus::kError,
                          "unknown tool '" + call.name + "'; available: " + (names.empty() ? "(none)" : names));
    return;
  }
  Result<std::string> canonical = detail::canonical_arguments(call.arguments);
  if (!canonical.ok()) {
    std::string why = "the arguments of " + call.name + " are not usable: " + canonical.status().message();
    guards_.push_back({GuardKind::kMalformedCall, why, call.name, call.id});
    pc.result = synthetic(call, ToolStatus::kError, why + ". Send the arguments as a JSON object.");
    return;
  }
  pc.canonical = *canonical;
  if (pc.spec->client_side) {  // the caller runs it and decides about it
    pc.state = PendingCall::State::kClient;
    return;
  }
  std::string sig = detail::call_signature(call.name, pc.canonical);
  if (disabled_signatures_.count(sig) != 0) {
    std::string why = call.name + " with these arguments failed " + std::to_string(config_.repeated_failure_limit) +
                      " times and is disabled for this run";
    guards_.push_back({GuardKind::kRepeatedFailure, why, call.name, call.id});
    guard_notes_.push_back(why + "; change the arguments or take another approach.");
    pc.result = synthetic(call, ToolStatus::kBlocked, "blocked: " + why + ". Change the arguments or take another approach.");
    return;
  }
  auto is_duplicate = [&](const std::string& tool, const std::string& canon) {
    if (tool != call.name) return false;
    if (canon == pc.canonical) return true;
    return pc.spec->read_only && config_.near_duplicate_threshold <= 1.0 &&
           detail::argument_similarity(canon, pc.canonical) >= config_.near_duplicate_threshold;
  };
  bool duplicate = std::any_of(successful_calls_.begin(), successful_calls_.end(),
                               [&](const SuccessfulCall& done) { return is_duplicate(done.tool, done.canonical); });
  for (size_t j = 0; j < index && !duplicate; ++j) {
    const PendingCall& earlier = round_calls_[j];
    if (earlier.state != PendingCall::State::kSettled && is_duplicate(earlier.call.name, earlier.canonical)) duplicate = true;
  }
  if (duplicate) {
    std::string why = call.name + " " + shorten(pc.canonical, 120) + " repeats an earlier call with the same arguments";
    guards_.push_back({GuardKind::kSemanticRepeat, why, call.name, call.id});
    guard_notes_.push_back("A duplicate call was blocked (" + why + "); use the result you already have.");
    pc.result = synthetic(call, ToolStatus::kBlocked,
                          "blocked: duplicate of an earlier call; nothing has changed since, so use the result you already have.");
    return;
  }
  // Without a gate, the risk threshold decides.
  GateVerdict verdict = GateVerdict::allow();
  if (config_.approval_gate) {
    verdict = config_.approval_gate->check(call, pc.canonical, *pc.spec);
    // What the gate settled without anyone being asked travels with the decision.
    bool allowed_past_risk = verdict.kind == GateVerdict::Kind::kAllow && pc.spec->risk >= config_.approval_threshold;
    if (verdict.kind == GateVerdict::Kind::kDeny || allowed_past_risk) {
      gate_decisions_.push_back({call, pc.spec->risk,
                                 allowed_past_risk ? ApprovalVerdict::kAllow : ApprovalVerdict::kDeny, verdict.reason});
    }
  } else {
    verdict = detail::risk_verdict(call.name, pc.spec->risk, config_.approval_threshold);
  }
  if (verdict.kind == GateVerdict::Kind::kDeny) return deny_call(pc, std::move(verdict.reason));
  bool ask = verdict.kind == GateVerdict::Kind::kAsk && always_allowed_.count(call.name) == 0;
  pc.state = ask ? PendingCall::State::kApprove : PendingCall::State::kRun;
  if (ask) pc.approval_reason = verdict.reason.empty() ? call.name + " needs approval" : std::move(verdict.reason);
}

void AgentMachine::deny_call(PendingCall& pc, std::string reason) {
  if (reason.empty()) reason = "denied";
  pc.state = PendingCall::State::kSettled;
  std::string what = pc.call.name + " " + shorten(pc.canonical, 160);
  denials_.push_back(what + " — " + reason);
  guards_.push_back({GuardKind::kPermissionDenied, what + " was denied: " + reason, pc.call.name, pc.call.id});
  pc.result = synthetic(pc.call, ToolStatus::kDenied,
                        "denied: " + reason + ". Do not retry this call; find another way or explain what you could not do.");
}

Decision AgentMachine::on_approvals(const ApprovalsGiven& given) {
  for (auto& pc : round_calls_) {
    if (pc.state != PendingCall::State::kApprove) continue;
    auto it = std::find_if(given.decisions.begin(), given.decisions.end(),
                           [&](const ApprovalDecision& d) { return d.call_id == pc.call.id; });
    ApprovalVerdict verdict = it == given.decisions.end() ? ApprovalVerdict::kDeny : it->verdict;
    std::string reason = it == given.decisions.end() ? "no approval decision was given" : it->reason;
    if (verdict == ApprovalVerdict::kAllowAlways) always_allowed_.insert(pc.call.name);
    if (verdict != ApprovalVerdict::kDeny) {
      pc.state = PendingCall::State::kRun;
      continue;
    }
    deny_call(pc, std::move(reason));
  }
  return dispatch_tools();
}

}  // namespace keel
