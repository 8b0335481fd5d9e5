// api/agui_request.hpp — reads an AG-UI RunAgentInput (the body of POST /agui) and works out the
// turn it asks keel to run.
//
//   {"threadId","runId","state","messages":[...],"tools":[...],"context":[...],"forwardedProps":{...}}
//
// threadId and runId are required strings and messages an array; tools, context, state and
// forwardedProps may be left out. forwardedProps.profile (a string) picks the keel profile; the
// default profile runs otherwise. Messages are user, assistant (text and toolCalls), tool
// (toolCallId), and system, developer, activity and reasoning messages, which are dropped (keel
// writes its own system prompt). Content is a string or an array of text parts; other parts
// (images, documents) are refused. Tools are the client's: {"name","description","parameters"}.
// Context entries ({"description","value"}) reach the model as notes after the task.
//
// A front end sends the whole thread on every run. Which part of it is new depends on what keel
// has stored (agui_threads.hpp):
//   - a new thread: the last message is the task (a user message) or the results of the tool
//     calls of the assistant message before it; everything before is the history the run starts
//     from. Tool calls the history never answered are dropped from it (a model refuses such a
//     conversation), as are results that answer no call.
//   - a stored thread: only what follows the last assistant message is new: its last user message
//     is the task, its tool messages answer the calls the last run handed over (`pending`). A
//     pending call the client went past without answering is answered "not run".
//
//   std::variant<AguiRequest, AguiError> parsed = parse_agui_request(request.body);
//   std::variant<AguiTurn, AguiError> turn = new_thread_turn(request.messages);
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "keel/message.hpp"
#include "keel/tool_spec.hpp"

namespace keel::api {

// A request keel cannot run, answered with HTTP `status` and {"error":{"code","message"}}.
struct AguiError {
  int status = 400;
  std::string code;
  std::string message;
};

struct AguiRequest {
  std::string thread_id;
  std::string run_id;
  std::string profile;                 // forwardedProps.profile; empty: the default profile
  std::vector<Message> messages;       // user, assistant and tool messages, as sent
  std::vector<ToolSpec> client_tools;  // the client's tools (client_side)
  std::string context;                 // the context entries, one "description: value" per line
  nlohmann::json state;                // the client's state; null when not sent
};

// The turn to run: a new thread starts from `earlier`; a stored thread gets `added` (results for
// the calls its last run handed over) before the task. An empty task: go on from the results.
struct AguiTurn {
  std::vector<Message> earlier;
  std::vector<Message> added;
  std::string task;
};

std::variant<AguiRequest, AguiError> parse_agui_request(std::string_view body);

// The turn of a thread keel has not stored: AguiError when `messages` neither ends with a user
// message nor with tool results.
std::variant<AguiTurn, AguiError> new_thread_turn(std::vector<Message> messages);

// The calls a stored session waits for the client to answer: those of its last assistant message
// that no tool message after it answers (none when the session ended otherwise).
std::vector<ToolCall> unanswered_calls(const std::vector<Message>& stored);

// The turn of a stored thread whose last run handed `pending` calls to the client (keel's ids):
// AguiError when nothing new follows the last assistant message.
std::variant<AguiTurn, AguiError> stored_thread_turn(const std::vector<Message>& messages,
                                                     const std::vector<ToolCall>& pending);

}  // namespace keel::api
