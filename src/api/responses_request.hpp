// api/responses_request.hpp — reads the body of an OpenAI Responses API create request
// (POST /v1/responses) into what a keel run needs: the profile, the input as a conversation, the
// client's function tools, and the streaming, storing and sampling choices.
//
//   std::variant<ResponsesRequest, OpenAiError> parsed = parse_responses_request(request.body);
//   ... on a worker, with the stored items item_reference may name:
//   std::variant<Conversation, OpenAiError> c = conversation_of(request, find_item, known_calls);
//
// Parsing is two steps so the first stays pure and cheap (the io thread runs it): the body's
// shape is checked and `input` becomes a list of canonical items (as GET
// /v1/responses/{id}/input_items lists them, once the endpoint gave them ids); conversation_of then turns the items
// into keel messages, resolving item_reference items through the caller's lookup (a store read).
//
// keel runs the profile's own tools itself; `tools` (function tools only) are the client's:
// offered next to keel's, and the model's calls to them come back as function_call output items.
// A conversation that ends with function_call_output items answering them continues the run;
// otherwise the input must end with a user message (the task). `instructions`, and system and
// developer messages, are accepted and dropped: keel writes its own system prompt from the
// profile. text.format json_object / json_schema is kept (`text_format`, schema as JSON text).
// Unknown top-level fields are ignored; known features keel cannot honour (hosted tools,
// conversation, prompt templates, image or file inputs, logprobs) are a 400 naming the field.
//
// Thread-safety: pure functions.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/answer_format.hpp"
#include "api/openai_error.hpp"
#include "keel/message.hpp"
#include "keel/model_io.hpp"
#include "keel/tool_spec.hpp"

namespace keel::api {

// One create request, its shape checked.
struct ResponsesRequest {
  std::string model;                                       // the keel profile the client asked for
  nlohmann::json input_items = nlohmann::json::array();    // canonical items ("id" as sent, if any)
  nlohmann::json instructions;                             // string or null: echoed, not used (see above)
  std::string previous_response_id;                        // empty: a new conversation
  bool store = true;                                       // keep the response (retrieve, continue)
  bool stream = false;                                     // answer as Server-Sent Events
  bool background = false;                                 // answer at once; the run goes on without the client
  std::vector<ToolSpec> client_tools;                      // `tools`: the client's function tools
  nlohmann::json tools = nlohmann::json::array();          // `tools` as echoed in the response
  std::string tool_choice;                                 // "", "auto", "none", "required" or a tool's name
  nlohmann::json tool_choice_echo = "auto";                // tool_choice as echoed in the response
  bool parallel_tool_calls = true;                         // accepted; a round's calls are handed over together
  SamplingParams sampling;                                 // temperature, top_p, max_output_tokens (max_tokens)
  nlohmann::json metadata = nlohmann::json::object();      // echoed
  AnswerFormat text_format;                                // text.format (json_schema: the schema as JSON text)
  nlohmann::json text = {{"format", {{"type", "text"}}}};  // `text` as echoed
};

// The conversation a request's input makes.
struct Conversation {
  std::vector<Message> earlier;  // the messages before the task (system and developer dropped)
  std::string task;              // the last user message; empty: go on after the tool results ending `earlier`
};

// Finds an output item of a stored response by its id (item_reference); nullopt: unknown.
using ItemLookup = std::function<std::optional<nlohmann::json>(const std::string& item_id)>;

// Parses and checks `body`. Errors name the field (OpenAiError::param) and say what to send
// instead; the model's existence and previous_response_id are not checked here.
std::variant<ResponsesRequest, OpenAiError> parse_responses_request(std::string_view body);

// The conversation of `request.input_items`. `find_item` resolves item_reference items;
// `earlier_calls` are function calls made before the input (the previous response's), which
// function_call_output items may answer. 400 for an unknown reference, an output answering no
// call, or an input that ends with neither a user message nor function call outputs.
std::variant<Conversation, OpenAiError> conversation_of(const ResponsesRequest& request, const ItemLookup& find_item,
                                                        const std::vector<ToolCall>& earlier_calls);

}  // namespace keel::api
