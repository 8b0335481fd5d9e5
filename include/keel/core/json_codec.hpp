// keel/core/json_codec.hpp — JSON forms of the state machine's events and decisions.
//
// Hosts that talk JSON (the WebAssembly build, test vectors, --json output) use these to cross the
// boundary. Decisions are summarised for hosts: a CallModel carries the round, flags, the number
// of history messages and the continuation prompt rather than a copy of the history. The forms
// written hold no ill-formed UTF-8: such bytes become U+FFFD.
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
#include <span>
#include <string_view>
#include <vector>

#include "keel/core/agent_config.hpp"
#include "keel/core/decision.hpp"
#include "keel/core/event.hpp"
#include "keel/message.hpp"
#include "keel/model_io.hpp"
#include "keel/result.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

// {"action": "call_model"|"call_planner"|"summarize"|"run_tools"|"ask_approval"|"finish"|"fail", ...,
// "guards": [...]}; "planner": {"plan", "skipped"} on the decision after a call_planner;
// "plan_steps" and "gate_decisions" ([{"call", "risk", "verdict", "reason"}]) when there are any.
nlohmann::json decision_to_json(const Decision& decision);

// InvalidArgument naming the missing or mistyped field. event_from_text reads the event's JSON text
// in place, without a document (what a host sends at every step, tool results in full).
Result<Event> event_from_json(const nlohmann::json& json);
Result<Event> event_from_text(std::string_view text);

// {"name", "description", "parameters" (object), "read_only", "concurrency_safe", "risk", "timeout_ms", "cacheable",
// "postconditions" (keel/core/postcondition.hpp's JSON form)}.
Result<ToolSpec> tool_spec_from_json(const nlohmann::json& json);

// Known keys: max_rounds, max_empty_replies, repeated_failure_limit, near_duplicate_threshold,
// result_char_budget, approval_threshold ("low"|"medium"|"high"), tool_protocol ("native"|"text"),
// context_window, context_threshold, recency_rounds, summary_cooldown_rounds, planner (bool),
// planner_timeout_ms.
Result<AgentConfig> agent_config_from_json(const nlohmann::json& json);

// A conversation message as hosts in other languages store and send it: {"role", "content", and when
// set "tool_calls" ([{"id", "name", "arguments" (JSON object text)}]), "tool_call_id", "name",
// "reasoning", "metadata" (string values)}. The reader also takes arguments as an object.
nlohmann::json chat_message_to_json(const Message& message);
Result<Message> chat_message_from_json(const nlohmann::json& json);

// A JSON array of messages or of tool specs; errors name the element ("what[2]: ...").
Result<std::vector<Message>> chat_messages_from_json(const nlohmann::json& json, std::string_view what);
Result<std::vector<ToolSpec>> tool_specs_from_json(const nlohmann::json& json, std::string_view what);

// Everything a host needs to call a model for a CallModel, CallPlanner or Summarize: {"messages" (in
// send order), "tools" ([{"name", "description", "parameters" (object)}], empty when tools are
// disabled), "tools_enabled", "round", "final_round", "sampling", and when set "tool_choice",
// "response_schema"}. With `first_message` > 0 the messages before it are left out (the host already
// holds them) and "messages_from" says how many.
nlohmann::json model_request_to_json(const ModelRequest& request, size_t first_message = 0);
// The "tools" of model_request_to_json for `tools` (each schema parsed; one that is not a JSON
// object is sent as {"type":"object"}).
nlohmann::json tools_to_json(std::span<const ToolSpec> tools);

}  // namespace keel
