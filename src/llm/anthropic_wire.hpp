// The Anthropic Messages wire format: keel's ModelRequest to request JSON, a non-streamed reply
// body to a ModelReply, and Anthropic's error bodies to messages.
//
// Thread-safety: free functions without shared state; safe from any thread.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "keel/model_io.hpp"
#include "keel/result.hpp"

namespace keel::detail {

struct AnthropicWireOptions {
  std::string_view model;  // the "model" field
  int max_tokens = 4096;   // used when the request's sampling sets none
  bool stream = false;     // "stream": true
};

// The JSON body of POST /v1/messages. System messages are joined (blank line between) into the
// top-level "system"; tool messages become tool_result blocks of a user message (is_error when the
// result's metadata "status" is not "ok"); consecutive messages of one role share one message;
// empty texts are left out (the API rejects empty text blocks). On the final, tool-less round the
// tools are still declared (the history may hold tool_use blocks) with tool_choice "none".
// Fails with kInvalidArgument when a tool's parameters_schema is not a JSON object.
Result<std::string> build_messages_request(const ModelRequest& request, const AnthropicWireOptions& options);

// keel's finish reason for an Anthropic stop_reason: end_turn and stop_sequence -> "stop",
// tool_use -> "tool_calls", max_tokens -> "length"; others pass through.
std::string finish_reason_of(std::string_view stop_reason);

// What the user reads of a refusal that came without text: the explanation in `holder`'s
// stop_details ({"type":"refusal","explanation":...}) when its stop_reason is "refusal", else "".
// `holder` is a message, or the delta of a streamed message_delta.
std::string anthropic_refusal_text(const nlohmann::json& holder);

// Prompt tokens of a usage object: input_tokens plus the cache creation and cache read tokens.
int64_t anthropic_prompt_tokens(const nlohmann::json& usage);
// The part of those read from the prompt cache (cache_read_input_tokens), or 0.
int64_t anthropic_cached_prompt_tokens(const nlohmann::json& usage);

// Parses a non-streamed "message" body. A body that is not JSON, is an error object, or is not a
// message fails with kUnavailable (the caller may retry).
Result<ModelReply> parse_messages_reply(std::string_view body);

// "<error.type>: <error.message>" from an Anthropic error object ({"type":"error","error":{...}}),
// or "" when `value` is not one.
std::string anthropic_error_text(const nlohmann::json& value);

// The message of an error body for a failed HTTP status: anthropic_error_text, else the generic
// server_error_message (raw body truncated).
std::string anthropic_server_message(std::string_view body);

}  // namespace keel::detail
