// api/openai_reply.hpp — the JSON shapes the OpenAI-compatible endpoint answers with: the model
// list, a chat.completion, the chat.completion.chunk events of a stream, and errors.
//
//   CompletionIds ids{new_completion_id(), now_s, "default"};
//   respond_json(out, 200, completion_body(ids, outcome));
//   out.write(chunk_event(ids, {{"content", "Hel"}}, nullptr, false));
//
// Thread-safety: pure functions (new_completion_id draws from a per-thread generator).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/agent_factory.hpp"
#include "api/openai_request.hpp"
#include "keel/hooks.hpp"
#include "server/http_responder.hpp"

namespace keel::api {

// What every chunk of one completion repeats.
struct CompletionIds {
  std::string id;       // "chatcmpl-" and 24 hex digits
  int64_t created = 0;  // unix seconds
  std::string model;    // the profile name the client asked for
};

// A fresh "chatcmpl-…" id.
std::string new_completion_id();

// {"object":"model","id":name,"created":created,"owned_by":"keel"}.
nlohmann::json model_json(const ProfileInfo& profile, int64_t created);
// {"object":"list","data":[model_json...]}.
std::string models_body(const std::vector<ProfileInfo>& profiles, int64_t created);

// {"prompt_tokens","completion_tokens","total_tokens"}.
nlohmann::json usage_json(const Usage& usage);
// keel's extension object: {"session_id","run_id","rounds","tool_calls"}.
nlohmann::json keel_json(const RunOutcome& outcome);

// A whole chat.completion carrying a successful run's answer, or the client tool calls it handed
// over (message.tool_calls, finish_reason "tool_calls").
std::string completion_body(const CompletionIds& ids, const RunOutcome& outcome);

// One "data: {chat.completion.chunk}\n\n" event with `delta` and `finish_reason` (null or a
// string) in its one choice; `usage_null` adds "usage":null (streams with include_usage).
std::string chunk_event(const CompletionIds& ids, nlohmann::json delta, nlohmann::json finish_reason, bool usage_null);
// The chunk that hands the client's tool calls over: delta.tool_calls, each with its index.
std::string tool_calls_event(const CompletionIds& ids, const std::vector<ToolCall>& calls, bool usage_null);
// The closing chunk: an empty delta with finish_reason "stop" ("tool_calls" when the run handed
// calls of the client's tools over) and keel's extension object.
std::string stop_event(const CompletionIds& ids, const RunOutcome& outcome, bool usage_null);
// The include_usage chunk: no choices, the run's usage.
std::string usage_event(const CompletionIds& ids, const Usage& usage);
// "data: {"error":{...}}\n\n", how a stream reports a failure after its headers went out.
std::string error_event(const OpenAiError& error);
// "data: [DONE]\n\n".
std::string done_event();

// {"error":{"message","type","param","code"}} (empty param/code are null).
std::string error_body(const OpenAiError& error);
// Sends error_body with error.status and `headers`.
void respond_openai_error(server::HttpResponder& responder, const OpenAiError& error, server::HttpHeaders headers);

// The error for a run that ended without an answer: 400 run_failed, code the failure kind, not
// retryable (x-should-retry: false). A retry would run the agent, and its tools, again; the
// status is one no official client or agent SDK retries (500, 422 and 409 are, by some of them).
OpenAiError run_failed_error(const RunOutcome& outcome);

}  // namespace keel::api
