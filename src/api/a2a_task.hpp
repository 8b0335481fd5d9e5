// api/a2a_task.hpp — keel's runs as A2A (Agent2Agent protocol, v1.0) tasks, in the protocol's
// JSON: a task is a keel run (its id is the run id), its context is the run's session, its status
// comes from the run's state and phase (a run parked for an approval or a question is
// TASK_STATE_INPUT_REQUIRED, with what it waits for as the status message), its artifact is the
// answer. Also the protocol's error codes and the text of an incoming message.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/pending_input.hpp"
#include "api/run_service.hpp"
#include "keel/result.hpp"
#include "keel/store/records.hpp"

namespace keel::api::a2a {

// A2A's JSON-RPC error codes (besides JSON-RPC's own).
inline constexpr int kTaskNotFound = -32001;
inline constexpr int kTaskNotCancelable = -32002;
inline constexpr int kUnsupportedOperation = -32004;
inline constexpr int kContentTypeNotSupported = -32005;
inline constexpr int kVersionNotSupported = -32009;

// The protocol version keel speaks, as the A2A-Version header and the agent card say it.
inline constexpr const char* kProtocolVersion = "1.0";

// "TASK_STATE_WORKING", ...: the state of a run (its stored state, and its phase while active).
std::string task_state(RunState state, std::optional<RunPhase> phase);
bool final_state(const std::string& state);

// An agent message with one text part.
nlohmann::json agent_message(const std::string& text, const std::string& context_id, const std::string& task_id);

// What a parked run waits for, as words for the other agent: the approval (with how to answer)
// or the question; empty when it waits for nothing.
std::string waiting_for(const PendingInput& pending, const std::string& run_id);

// The task of `run`: status (with `status_text` as its message when given), the answer as an
// artifact once finished, and `history` (the session's messages of this run) when given.
nlohmann::json task_json(const RunRecord& run, std::optional<RunPhase> phase, const std::string& status_text,
                         const std::vector<StoredMessage>* history);

// The text of an incoming message's parts: text parts as they are, data parts as JSON.
// InvalidArgument (for kContentTypeNotSupported) for file parts, or when there is no text.
Result<std::string> message_text(const nlohmann::json& message);

}  // namespace keel::api::a2a
