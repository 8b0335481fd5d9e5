// api/anthropic_request.hpp — reads the body of an Anthropic Messages request (POST /v1/messages)
// into what a keel run needs: the profile, the conversation before the task, the task, the
// client's own tools, and the streaming and sampling choices.
//
//   std::variant<MessagesRequest, AnthropicError> parsed = parse_messages_request(request.body);
//   if (auto* error = std::get_if<AnthropicError>(&parsed)) { ... 400, error->field named ... }
//
// The conversation maps onto keel's messages: a user message's text blocks are one user message,
// its tool_result blocks one Role::kTool message each (answering the previous assistant message's
// tool_use blocks, all of which must be answered); an assistant message's text blocks and tool_use
// blocks are one assistant message with tool calls. The last message must be the user's: its text
// is the task, and when it carries tool results they end `earlier`, so that a request with results
// and no text continues the conversation without a task (Agent::run_after with an empty task).
// `system` is checked, then dropped: keel writes its own system prompt from the profile.
// Thinking, image and document blocks, a final assistant message (prefill) and Anthropic's own
// server tools are refused with the field named.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "keel/message.hpp"
#include "keel/model_io.hpp"
#include "keel/tool_spec.hpp"

namespace keel::api {

// An Anthropic-style error, {"type":"error","error":{"type","message"}}, with its HTTP status.
struct AnthropicError {
  int status = 400;
  std::string type = "invalid_request_error";  // invalid_request_error | not_found_error | api_error | ...
  std::string message;                         // starts with the field ("messages.2.content.0.type: ...")
  std::string field;                           // the offending field in that dotted form; empty: none
  bool retryable = true;                       // false: sent with "x-should-retry: false"
};

// One Messages request, validated.
struct MessagesRequest {
  std::string model;              // the keel profile the client asked for
  std::vector<Message> earlier;   // the conversation before the task (user, assistant, tool)
  std::string task;               // the last user message's text; empty: go on from the tool results
  bool stream = false;            // answer as Server-Sent Events
  SamplingParams sampling;        // max_tokens, temperature, top_p, top_k, stop_sequences as sent
  std::vector<ToolSpec> tools;    // the client's own tools (it runs them); schema as JSON text
  std::string tool_choice;        // "" (auto), "none", "required" (Anthropic "any"), or a tool's name
};

// Parses and checks `body`. Errors name the field and say what to send instead; the model's
// existence is not checked here.
std::variant<MessagesRequest, AnthropicError> parse_messages_request(std::string_view body);

}  // namespace keel::api
