// api/openai_request.hpp — reads the body of an OpenAI Chat Completions request
// (POST /v1/chat/completions) into what a keel run needs: the profile, the conversation before
// the task, the task, and the streaming and sampling choices.
//
//   std::variant<ChatRequest, OpenAiError> parsed = parse_chat_request(request.body);
//   if (auto* error = std::get_if<OpenAiError>(&parsed)) { ... 400 with error->param named ... }
//
// keel runs its own tools, so a request that brings its own (`tools`, `functions`, a
// `tool_choice` other than none/auto) is refused. System and developer messages are dropped:
// keel builds its own system prompt from the profile. The last message must be the user's task.
// Content is a string or an array of text parts; any other part type is refused.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "keel/message.hpp"
#include "keel/model_io.hpp"

namespace keel::api {

// An OpenAI-style error: {"error":{"message","type","param","code"}} with an HTTP status.
struct OpenAiError {
  int status = 400;
  std::string message;                         // what was wrong, with the value, and what to do
  std::string type = "invalid_request_error";  // invalid_request_error | server_error | ...
  std::string param;                           // the offending field ("messages[2].content"); empty: null
  std::string code;                            // a stable code ("model_not_found"); empty: null
};

// One chat-completions request, validated.
struct ChatRequest {
  std::string model;              // the keel profile the client asked for
  std::vector<Message> earlier;   // the conversation before the task (user, assistant, tool)
  std::string task;               // the last user message's text
  bool stream = false;            // answer as Server-Sent Events
  bool include_usage = false;     // stream_options.include_usage: a usage chunk before [DONE]
  SamplingParams sampling;        // temperature, top_p, seed, max_(completion_)tokens as sent
};

// Parses and checks `body`. Errors name the field (OpenAiError::param) and say what to send
// instead; the model's existence is not checked here.
std::variant<ChatRequest, OpenAiError> parse_chat_request(std::string_view body);

}  // namespace keel::api
