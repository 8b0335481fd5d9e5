// tools/a2a/a2a_wire.hpp — the A2A messages keel sends and reads, as JSON: the JSON-RPC envelope,
// SendMessage / GetTask / CancelTask parameters, and tasks and messages turned into what the tool
// reports. Two dialects: v1.0 (methods SendMessage..., "ROLE_USER", "TASK_STATE_COMPLETED", parts
// {text}, results {task} or {message}) and the older v0.3 (message/send..., "kind" fields,
// lowercase states such as "input-required").
//
// Nothing here does I/O, so every shape can be tested on its own.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "keel/result.hpp"

namespace keel::detail {

enum class A2aProtocol { kV1, kV03 };

enum class A2aMethod { kSendMessage, kGetTask, kCancelTask };

// The JSON-RPC method name of `method` in `protocol` ("SendMessage" or "message/send", ...).
std::string_view a2a_method_name(A2aProtocol protocol, A2aMethod method);

enum class A2aTaskState {
  kUnknown,  // absent or a word keel does not know
  kSubmitted,
  kWorking,
  kCompleted,
  kFailed,
  kCanceled,
  kRejected,
  kInputRequired,
  kAuthRequired,
};

// The state a wire word names: "TASK_STATE_WORKING" (v1.0) or "working" (v0.3); kUnknown otherwise.
A2aTaskState parse_a2a_task_state(std::string_view word);
// "completed", "input-required", ... (for messages; "unknown" for kUnknown).
std::string_view a2a_task_state_name(A2aTaskState state);
// Whether a task in `state` is still running (submitted or working): worth polling.
bool a2a_task_running(A2aTaskState state);

// What one answer of the agent says.
struct A2aReply {
  bool is_task = false;  // a task; else a plain message (final by nature)
  std::string task_id;   // the task's id, or the message's taskId when it has one
  std::string context_id;
  A2aTaskState state = A2aTaskState::kUnknown;  // tasks only
  std::string state_word;                       // the state as sent, for messages about unknown states
  std::string status_text;                      // the text of the task's status message
  std::string answer_text;                      // a message's parts; a task's artifacts (else its last agent message)
};

// `params` wrapped as JSON-RPC 2.0 request `id`, as compact text.
std::string a2a_rpc_request(std::string_view method, const nlohmann::json& params, int64_t id);

// The `result` of a JSON-RPC response text, checked to answer request `id`. A JSON-RPC error
// object becomes a Status naming the agent `who`, the method, the code (with its A2A meaning) and
// the agent's message; a body that is no JSON-RPC response is an Unavailable error quoting it.
Result<nlohmann::json> a2a_rpc_result(std::string_view body, int64_t id, std::string_view method, std::string_view who);

// SendMessage's params: a user message holding `text`, with the context and task it continues
// (empty: none) and a request not to wait for the task to finish (the call polls instead).
nlohmann::json a2a_send_params(A2aProtocol protocol, std::string_view text, std::string_view message_id,
                               std::string_view context_id, std::string_view task_id);
// GetTask's and CancelTask's params.
nlohmann::json a2a_task_params(std::string_view task_id);

// SendMessage's result: {task} or {message} (v1.0), or an object with kind "task"/"message"
// (v0.3). InvalidArgument (naming `who`) when it is neither.
Result<A2aReply> parse_a2a_send_result(const nlohmann::json& result, std::string_view who);
// GetTask's or CancelTask's result: a task (also accepted wrapped as {task}).
Result<A2aReply> parse_a2a_task(const nlohmann::json& result, std::string_view who);

}  // namespace keel::detail
