// The CLI's approvers: the person at the terminal, or, without one, a refusal that says how to
// allow the call.
//
// On a terminal each call the policy asks about is shown as
//   approve shell command=rm -rf build (shell is a high-risk tool)? [y]es / [n]o / [a]lways / ne[v]er
// "always" and "never" are remembered for the workspace (`keel approvals list` shows them,
// `keel approvals rm` forgets them) and apply to the rest of the run at once.
//
// Thread-safety: an approver is used by one run at a time (the Agent's contract).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "keel/approver.hpp"
#include "keel/result.hpp"

namespace keel::cli {

// Saves a standing answer ("always" kAllow, "never" kDeny) for every call of `tool` in the workspace.
using RememberApproval = std::function<Status(const std::string& tool, ApprovalVerdict verdict)>;

// nullptr when there is no terminal to ask (no /dev/tty or stdin is not a TTY). "never" answers
// are passed to `remember` (an "always" answer is the kAllowAlways verdict, which the agent
// remembers itself).
std::unique_ptr<Approver> make_tty_approver(RememberApproval remember);

// For runs without a terminal and without --yes: denies each call with a reason that names the
// tool and the ways to allow it (--yes, --approve-mode auto, an approvals entry in keel.yaml, a
// remembered rule).
std::unique_ptr<Approver> make_non_interactive_approver();

}  // namespace keel::cli
