// api/anthropic_reply.hpp — the JSON shapes /v1/messages answers with: a Messages API message,
// the Server-Sent Events of a streamed one, and Anthropic-shaped errors.
//
//   MessageIds ids{new_message_id(), "default"};
//   respond_json(out, 200, message_body(ids, outcome, stop_reason_of(outcome, last_finish)));
//   out.write(sse_event("message_stop", {{"type", "message_stop"}}));
//   respond_anthropic_error(out, error, headers);   // {"type":"error","error":{...}}, x-should-retry: false
//
// A message's content is the run's answer as one text block (left out when empty) followed by one
// tool_use block per call of the client's tools the run handed over; usage counts every model call
// of the run; a "keel" object adds {"session_id","run_id","rounds","tool_calls"} as the
// OpenAI-compatible endpoint does.
//
// Thread-safety: pure functions (new_message_id draws from a per-thread generator).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "api/anthropic_request.hpp"
#include "keel/hooks.hpp"
#include "server/http_responder.hpp"

namespace keel::api {

// What every event of one message repeats.
struct MessageIds {
  std::string id;     // "msg_" and 24 hex digits
  std::string model;  // the profile name the client asked for
};

// A fresh "msg_…" id.
std::string new_message_id();

// "tool_use" when the run handed calls over, "max_tokens" when its last model reply was cut at
// the token limit (`last_finish` is that reply's finish_reason), else "end_turn".
std::string stop_reason_of(const RunOutcome& outcome, std::string_view last_finish);

// {"input_tokens","output_tokens"}.
nlohmann::json anthropic_usage_json(const Usage& usage);
// {"type":"tool_use","id","name","input"}: the call's arguments as an object ({} when they are not one).
nlohmann::json tool_use_json(const ToolCall& call);
// A whole message carrying a successful run's answer and handed-over calls.
std::string message_body(const MessageIds& ids, const RunOutcome& outcome, std::string_view stop_reason);
// The message of a stream's message_start: no content, no stop reason, zero usage.
nlohmann::json message_start_json(const MessageIds& ids);

// "event: NAME\ndata: {payload}\n\n".
std::string sse_event(std::string_view name, const nlohmann::json& payload);

// Anthropic's error type for an HTTP status: 400 invalid_request_error, 401 authentication_error,
// 403 permission_error, 404 not_found_error, 413 request_too_large, 429 rate_limit_error,
// 529 overloaded_error, other 4xx invalid_request_error, 5xx api_error.
std::string anthropic_error_type(int status);
// {"type":"error","error":{"type","message"}}.
std::string anthropic_error_body(std::string_view type, std::string_view message);
// Sends the error with its status and `headers` (and x-should-retry: false when it is not
// retryable).
void respond_anthropic_error(server::HttpResponder& responder, const AnthropicError& error, server::HttpHeaders headers);
// "event: error" with the error's body, how a stream reports a failure after its headers went out.
std::string anthropic_error_event(const AnthropicError& error);

// The error for a run that ended without an answer: 400 api_error with the run's message, not
// retryable. A retry would run the agent, and its tools, again; 400 is the status no official
// client retries on its own, and x-should-retry: false says so to those that read it.
AnthropicError messages_run_failed_error(const RunOutcome& outcome);

}  // namespace keel::api
