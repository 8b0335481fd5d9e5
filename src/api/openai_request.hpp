// api/openai_request.hpp — reads the body of an OpenAI Chat Completions request
// (POST /v1/chat/completions) into what a keel run needs: the profile, the conversation before
// the task, the task, and the streaming and sampling choices.
//
//   std::variant<ChatRequest, OpenAiError> parsed = parse_chat_request(request.body);
//   if (auto* error = std::get_if<OpenAiError>(&parsed)) { ... 400 with error->param named ... }
//
// keel runs the profile's tools itself; function tools the client sends (`tools`) are the
// client's: offered next to keel's, their calls handed back for the client to run. The
// conversation then continues with the client's tool messages: a request whose last messages
// answer every call of the last assistant message has no task (empty) and goes on from there.
// Otherwise the last message must be the user's task. System and developer messages are dropped:
// keel builds its own system prompt from the profile. Content is a string or an array of text
// parts; any other part type is refused.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/answer_format.hpp"
#include "api/openai_error.hpp"
#include "keel/message.hpp"
#include "keel/tool_spec.hpp"
#include "keel/model_io.hpp"

namespace keel::api {


// One chat-completions request, validated.
struct ChatRequest {
  std::string model;              // the keel profile the client asked for
  std::vector<Message> earlier;   // the conversation before the task (user, assistant, tool)
  std::string task;               // the last user message's text; empty: continue after the client's results
  bool stream = false;            // answer as Server-Sent Events
  bool include_usage = false;     // stream_options.include_usage: a usage chunk before [DONE]
  SamplingParams sampling;        // temperature, top_p, seed, max_(completion_)tokens as sent
  // `tools`: the client's function tools. keel offers them next to the profile's own; the
  // model's calls to them are handed back (finish_reason "tool_calls") for the client to run.
  std::vector<ToolSpec> client_tools;
  std::string tool_choice;        // "", "auto", "none", "required" or the name of a tool
  AnswerFormat format;            // response_format
};

// Parses and checks `body`. Errors name the field (OpenAiError::param) and say what to send
// instead; the model's existence is not checked here.
std::variant<ChatRequest, OpenAiError> parse_chat_request(std::string_view body);

}  // namespace keel::api
