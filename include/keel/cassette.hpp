// keel/cassette.hpp — record a run's model exchanges to a file, and replay them later with no
// network: deterministic re-runs for tests, bug reports and demos.
//
// A cassette is JSON Lines. The first line is a header {"cassette":1,"backend":"<describe()>"};
// every later line is one exchange, written as soon as it completes (a crash keeps what was
// recorded):
//   {"request":{...},"events":[{"text":"..."},{"reasoning":"..."},{"retry":{...}}],
//    "reply":{...}}                       or, for a failed call, "error":{"code":"unavailable","message":"..."}
// The request is the normalized ModelRequest as the backend saw it: messages (role, content,
// tool_calls, tool_call_id, name, reasoning), the offered tools (name and parameter schema),
// sampling and the stream flag.
//
//   KEEL_ASSIGN_OR_RETURN(auto rec, keel::make_recording_client(std::move(backend), "run.jsonl"));
//   ...run an Agent on *rec...
//   KEEL_ASSIGN_OR_RETURN(auto replay, keel::make_replay_client("run.jsonl"));
//   ...the same run on *replay gets the same replies, streamed pieces and errors...
//
// Replay compares each call with the next recorded request. On a difference it fails with
// kFailedPrecondition naming the first difference, e.g.
//   replay: request 3 differs at messages[4].content: recorded "list files", got "list the files"
// and when the cassette is used up: "replay: the run made request 5 but FILE holds only 4".
// The replaying client's describe() is the recorded backend's, so a replayed run reports (and emits
// events) exactly as the recorded one did.
//
// Thread-safety: both clients serialize their calls internally, so sub-agents sharing one are safe.
#pragma once

#include <memory>
#include <string>

#include "keel/llm_client.hpp"
#include "keel/result.hpp"

namespace keel {

// Wraps `inner` (owned) and records every exchange to `path` (created or truncated). Errors:
// kUnavailable when the file cannot be opened for writing. The recorder never changes a call's
// outcome: a later write failure only leaves a shorter cassette, which replay reports.
Result<std::unique_ptr<LlmClient>> make_recording_client(std::unique_ptr<LlmClient> inner, const std::string& path);

// Loads the cassette at `path` into a replaying client. Errors (kInvalidArgument) name the file
// and line: unreadable file, missing or wrong header, a line that is not JSON or lacks "request",
// or has neither "reply" nor "error".
Result<std::unique_ptr<LlmClient>> make_replay_client(const std::string& path);

}  // namespace keel
