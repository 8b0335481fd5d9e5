// keel/approver.hpp — who decides on calls that need approval (high-risk tools).
//
// The core asks; an Approver answers. Hosts supply their own: the CLI asks on a TTY, the server
// asks over the wire. Two ready-made ones cover automation.
//
// Thread-safety: decide() is called from the run's thread, one request batch at a time.
#pragma once

#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "keel/core/decision.hpp"
#include "keel/core/event.hpp"

namespace keel {

class Approver {
 public:
  virtual ~Approver() = default;
  // One decision per request (a missing one counts as a denial). Should return promptly when
  // `stop` is requested.
  virtual std::vector<ApprovalDecision> decide(const std::vector<ApprovalRequest>& requests, std::stop_token stop) = 0;
};

// Approves everything (`keel run --yes`). `reason` is recorded with each decision.
std::unique_ptr<Approver> make_approve_all(std::string reason = "approved by --yes");

// Denies everything with `reason`, which the model sees.
std::unique_ptr<Approver> make_deny_all(std::string reason);

}  // namespace keel
