// keel/core/approval_gate.hpp — the question the core asks before it runs a tool call: may this
// call run, must someone be asked first, or is it refused?
//
// The pure core owns the decision flow (ask the host, record denials as standing constraints);
// an ApprovalGate supplies the verdict for one call. Hosts plug in a policy (the runtime's
// keel.yaml policy with regular expressions and remembered rules) through AgentConfig::approval_gate;
// without one the core asks about every call whose risk is at or above
// AgentConfig::approval_threshold.
//
//   struct NoShell : keel::ApprovalGate {
//     keel::GateVerdict check(const keel::ToolCall& call, std::string_view, const keel::ToolSpec&) const override {
//       return call.name == "shell" ? keel::GateVerdict::deny("shell is switched off here") : keel::GateVerdict::allow();
//     }
//   };
//   config.approval_gate = std::make_shared<NoShell>();
//
// Contract: check() is called once per call that passed the core's other guards (unknown tool,
// unusable arguments, disabled or duplicate call), in the order of the model's calls, on the
// thread that drives the machine. It must not throw. A deny verdict's reason is shown to the model
// and kept as a standing constraint for the run, so it should name the rule that refused the call.
//
// Thread-safety: implementations must allow check() on a const object; the core never calls it
// concurrently for one machine, but one gate may be shared by several machines.
#pragma once

#include <string>
#include <string_view>

#include "keel/message.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

struct GateVerdict {
  enum class Kind {
    kAllow,  // run the call without asking
    kAsk,    // ask the host's approver (AskApproval) first
    kDeny,   // do not run it: a denied result, a permission_denied guard and a standing constraint
  };
  Kind kind = Kind::kAsk;
  // kDeny: why, naming the rule (the model reads it); kAsk: why approval is needed (shown to the
  // person asked); kAllow: optional, for logs.
  std::string reason = {};

  static GateVerdict allow(std::string reason = {}) { return make(Kind::kAllow, std::move(reason)); }
  static GateVerdict ask(std::string reason) { return make(Kind::kAsk, std::move(reason)); }
  static GateVerdict deny(std::string reason) { return make(Kind::kDeny, std::move(reason)); }

 private:
  static GateVerdict make(Kind kind, std::string reason) {
    GateVerdict v;
    v.kind = kind;
    v.reason = std::move(reason);
    return v;
  }
};

class ApprovalGate {
 public:
  virtual ~ApprovalGate() = default;
  // The verdict for `call`. `canonical_args` is its arguments as canonical JSON (keys sorted, no
  // whitespace); `spec` is the tool's metadata (risk, read_only, ...).
  virtual GateVerdict check(const ToolCall& call, std::string_view canonical_args, const ToolSpec& spec) const = 0;
};

}  // namespace keel
