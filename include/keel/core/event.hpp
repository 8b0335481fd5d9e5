// keel/core/event.hpp — what happened: the inputs of the agent state machine.
//
// The host performs the I/O a Decision asks for and reports the outcome as one Event.
// Thread-safety: plain values.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "keel/message.hpp"
#include "keel/model_io.hpp"
#include "keel/result.hpp"

namespace keel {

// The backend answered a CallModel decision.
struct ModelReplied {
  ModelReply reply;
};

// The backend failed for good (retries, if any, are already spent).
struct ModelFailed {
  Status error;
};

// The tools of a RunTools decision finished: one result per call, in the decision's order.
struct ToolsFinished {
  std::vector<ToolResult> results;
};

enum class ApprovalVerdict {
  kAllow,        // run this call
  kAllowAlways,  // run it, and every later call of this tool in this run
  kDeny,         // do not run it; the model is told why
};

// "allow", "allow_always", "deny".
std::string_view approval_verdict_name(ApprovalVerdict verdict);

struct ApprovalDecision {
  std::string call_id;  // the ToolCall::id decided on
  ApprovalVerdict verdict = ApprovalVerdict::kDeny;
  std::string reason;   // shown to the model for denials, e.g. "denied by the user"
};

// Decisions for an AskApproval. A pending call with no decision is denied.
struct ApprovalsGiven {
  std::vector<ApprovalDecision> decisions;
};

// After a final answer, a hook asked for another round with this user-visible message.
struct ContinueRequested {
  std::string message;
};

// The user or host stopped the run.
struct Aborted {
  std::string reason;
};

using Event = std::variant<ModelReplied, ModelFailed, ToolsFinished, ApprovalsGiven, ContinueRequested, Aborted>;

}  // namespace keel
