// keel/core/agent_config.hpp — the settings of one agent run, as the pure core sees them.
//
// Every field has a default; a zero-initialised AgentConfig{} is a sensible agent.
// Thread-safety: plain value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "keel/core/approval_gate.hpp"
#include "keel/core/context_manager.hpp"
#include "keel/core/run_budget.hpp"
#include "keel/core/token_counter.hpp"

#include "keel/tool_spec.hpp"

namespace keel {

// How tool calls travel between keel and the model.
enum class ToolProtocol {
  kNative,  // tools are sent in the API request (OpenAI `tools`); text-written calls are still accepted
  kText,    // tools are described in the system prompt and calls are parsed from the reply text
};

// Which role carries the runtime continuation prompt. kUser is the portable choice: many chat
// templates reject a system message after the first position.
enum class ContinuationRole { kUser, kSystem };

// A short planner model call before the first round of a new run (never when resuming): the
// machine's first decision is then CallPlanner, and the planner's reply becomes a "planner: ..."
// hint in the system prompt. Its failure is not fatal: the run goes on without a plan.
struct PlannerPolicy {
  bool enabled = false;
  int64_t timeout_ms = 2000;  // the deadline the host applies to the planner call
};

struct AgentConfig {
  // Model calls with tools enabled before the round limit fires (then one last call without
  // tools asks for the final answer). >= 1.
  int max_rounds = 20;
  // Consecutive replies with neither text nor a usable call that are corrected before the run
  // fails. 0 fails on the first empty reply.
  int max_empty_replies = 2;
  // Failures of the same tool with the same arguments after which that call is disabled for the
  // rest of the run. >= 1.
  int repeated_failure_limit = 2;
  // Similarity (0..1) at or above which a read-only call counts as a near-duplicate of an earlier
  // one; values above 1 turn near-duplicate detection off (exact duplicates are still blocked).
  double near_duplicate_threshold = 0.9;
  // Largest tool result kept in the conversation, in characters (bytes of UTF-8); longer results
  // are cut at a line or sentence boundary with a size note. 0 means no limit.
  size_t result_char_budget = 8000;
  // Calls to tools at or above this risk need an approval decision before they run (when
  // approval_gate is nullptr; a gate decides on its own, and keel's policy gate uses this as the
  // risk at which a tool's default mode becomes "confirm").
  Risk approval_threshold = Risk::kHigh;
  // Decides each call before it runs: allow, ask the approver, or deny (see approval_gate.hpp).
  // nullptr: ask about calls at or above approval_threshold, run the rest. Either way an "allow
  // always" answer stands for the rest of the run unless the gate denies the call.
  std::shared_ptr<const ApprovalGate> approval_gate = nullptr;
  ToolProtocol tool_protocol = ToolProtocol::kNative;
  // The message that asks the model to re-emit a call that could not be parsed (one repair round
  // per malformed call). "{error}" and "{tools}" are replaced. Empty: default_repair_prompt().
  std::string repair_prompt;
  ContinuationRole continuation_role = ContinuationRole::kUser;
  // The context pipeline run before every model call (context_window 0: accounting only).
  ContextPolicy context;
  // Counts tokens for the pipeline and the breakdown in CallModel; nullptr: the estimator.
  std::shared_ptr<const TokenCounter> token_counter;
  // The planner call before the first round (off by default).
  PlannerPolicy planner;
  // Token and cost caps of the run (none by default).
  RunBudget budget;
};

}  // namespace keel
