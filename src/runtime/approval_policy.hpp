// The runtime's ApprovalGate: keel's approval policy (keel.yaml `approvals`, --approve-mode) and
// the workspace's remembered decisions, compiled once per run.
//
// For each call, in order: the tool's and "*"'s deny patterns (refuse), their allow patterns
// (run), the remembered decisions (deny wins over allow), then the mode: the policy's override,
// else the tool's mode, else the default mode, else the risk (at or above `confirm_at`: confirm,
// below: auto). Last, the policy's floor (a client's requested mode) may make that verdict
// stricter: confirm asks about a call that would run, deny refuses every call; it never loosens.
// Patterns match partially (RE2) against approval_subject(): the command line for shell, the
// canonical JSON arguments for every other tool.
//
//   KEEL_ASSIGN_OR_RETURN(auto gate, detail::ApprovalPolicyGate::create(policy, Risk::kHigh, saved_rules));
//   config.approval_gate = gate;           // the core asks it about every call
//   gate->remember(rule);                  // an "always" answer applies from the next call on
//
// What it decides without asking (refusals, and calls it lets run that the risk alone would have
// asked about) reaches the host in the machine's Decision::gate_decisions.
//
// Thread-safety: thread-safe (one mutex); check() may run while remember() is called elsewhere.
#pragma once

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "keel/config.hpp"
#include "keel/core/approval_gate.hpp"
#include "keel/core/event.hpp"
#include "keel/store/records.hpp"
#include "keel/store/store.hpp"
#include "runtime/approval_rules.hpp"

namespace keel::detail {

class ApprovalPolicyGate final : public ApprovalGate {
 public:
  // InvalidArgument naming the tool and the pattern when a policy pattern does not compile.
  // Remembered rules that cannot be used (a pattern that does not compile, a bad verdict) are
  // left out: they never match.
  static Result<std::shared_ptr<ApprovalPolicyGate>> create(const ApprovalPolicy& policy, Risk confirm_at,
                                                             std::span<const ApprovalRule> saved_rules);
  ~ApprovalPolicyGate() override;

  GateVerdict check(const ToolCall& call, std::string_view canonical_args, const ToolSpec& spec) const override;

  // Applies a remembered decision from the next check on (replacing the one with the same tool and
  // pattern). InvalidArgument for a verdict other than kAllow / kDeny or a pattern that does not
  // compile.
  Status remember(const ApprovalRule& rule);

 private:
  struct Pattern;
  struct ToolEntry;
  ApprovalPolicyGate();
  GateVerdict decide(const ToolCall& call, std::string_view canonical_args, const ToolSpec& spec) const;
  GateVerdict by_mode(const ToolCall& call, const ToolSpec& spec) const;
  // `operator_verdict` made at least as strict as floor_mode_.
  GateVerdict apply_floor(const ToolCall& call, GateVerdict operator_verdict) const;

  std::vector<ToolEntry> tools_;  // by name; "*" included
  std::optional<ApprovalMode> default_mode_;
  std::string default_source_;
  std::optional<ApprovalMode> override_mode_;
  std::string override_source_;
  std::optional<ApprovalMode> floor_mode_;
  std::string floor_source_;
  Risk confirm_at_ = Risk::kHigh;
  mutable std::mutex mu_;
  SavedRules saved_;  // guarded by mu_
};

// The gate of one run in `workspace`: `policy` plus the decisions remembered for the workspace in
// `store` (none when `store` is nullptr). Errors: the policy's InvalidArgument, or the store's
// error when its rules cannot be read.
Result<std::shared_ptr<ApprovalPolicyGate>> load_approval_gate(const ApprovalPolicy& policy, Risk confirm_at,
                                                               Store* store, const std::string& workspace);

}  // namespace keel::detail
