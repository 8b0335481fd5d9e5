// keel/core/json_codec.hpp — JSON forms of the state machine's events and decisions.
//
// Hosts that talk JSON (the WebAssembly build, test vectors, --json output) use these to cross the
// boundary. Decisions are summarised for hosts: a CallModel carries the round, flags, the number
// of history messages and the continuation prompt rather than a copy of the history.
//
//   {"type":"model_replied","reply":{"text":"","tool_calls":[{"name":"fs_read","arguments":{"path":"a"}}]}}
//   {"type":"tools_finished","results":[{"call_id":"call_1_1","status":"ok","content":"..."}]}
//   {"type":"approvals_given","decisions":[{"call_id":"call_1_1","verdict":"deny","reason":"..."}]}
//   {"type":"model_failed","message":"..."}   {"type":"continue_requested","message":"..."}
//   {"type":"aborted","reason":"..."}
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "keel/core/agent_config.hpp"
#include "keel/core/decision.hpp"
#include "keel/core/event.hpp"
#include "keel/result.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

// {"action": "call_model"|"call_planner"|"summarize"|"run_tools"|"ask_approval"|"finish"|"fail", ...,
// "guards": [...]}; "planner": {"plan", "skipped"} on the decision after a call_planner;
// "plan_steps" and "gate_decisions" ([{"call", "risk", "verdict", "reason"}]) when there are any.
nlohmann::json decision_to_json(const Decision& decision);

// InvalidArgument naming the missing or mistyped field.
Result<Event> event_from_json(const nlohmann::json& json);

// {"name", "description", "parameters" (object), "read_only", "concurrency_safe", "risk", "timeout_ms", "cacheable",
// "postconditions" (keel/core/postcondition.hpp's JSON form)}.
Result<ToolSpec> tool_spec_from_json(const nlohmann::json& json);

// Known keys: max_rounds, max_empty_replies, repeated_failure_limit, near_duplicate_threshold,
// result_char_budget, approval_threshold ("low"|"medium"|"high"), tool_protocol ("native"|"text"),
// context_window, context_threshold, recency_rounds, summary_cooldown_rounds, planner (bool),
// planner_timeout_ms.
Result<AgentConfig> agent_config_from_json(const nlohmann::json& json);

}  // namespace keel
