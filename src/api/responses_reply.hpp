// api/responses_reply.hpp — the JSON shapes of the OpenAI Responses API as keel answers them: the
// response object, its output items, usage, the streamed events, and the ids that tie a response
// to the keel run behind it.
//
//   ResponseHead head = head_of(request, response_id_for_run(ctx.run_id), now_s);
//   ResponseBody body{.status = "completed", .output = items, .usage = outcome.usage};
//   respond_json(out, 200, response_json(head, body).dump());
//
// Ids: a response is one keel run, and its id is the run's ("resp_" and the run id's 32 hex
// digits), so a stored response is found from its id alone. Output item ids carry the response's
// digits too ("msg_"/"fc_", the 32 digits, 4 more), so an item_reference finds its response.
//
// The object carries every field the official SDKs read (OpenAI's defaults for those keel does
// not use: reasoning, service_tier, truncation...), and keel's extension object "keel":
// {"session_id","run_id","rounds","tool_calls"} as the chat endpoint's. "output_text" is not sent:
// it is a convenience the SDKs compute from the output.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "api/openai_error.hpp"
#include "api/responses_request.hpp"
#include "keel/hooks.hpp"

namespace keel::api {

// What a response object repeats from its request.
struct ResponseHead {
  std::string id;          // "resp_…"
  int64_t created_at = 0;  // unix seconds
  std::string model;       // the profile the client named
  nlohmann::json instructions;
  std::string previous_response_id;
  bool store = true;
  bool background = false;
  bool parallel_tool_calls = true;
  nlohmann::json tools = nlohmann::json::array();
  nlohmann::json tool_choice = "auto";
  nlohmann::json text;
  nlohmann::json metadata = nlohmann::json::object();
  SamplingParams sampling;
};

ResponseHead head_of(const ResponsesRequest& request, std::string id, int64_t created_at);

// What changes while a response runs.
struct ResponseBody {
  std::string status = "in_progress";  // in_progress | completed | failed | cancelled | incomplete | queued
  nlohmann::json output = nlohmann::json::array();
  std::optional<Usage> usage;  // unset: null
  nlohmann::json error;        // null, or {"code","message"}
  nlohmann::json keel;         // keel's extension object; null: left out
  int64_t completed_at = 0;    // unix seconds; 0: null
};

// The whole response object.
nlohmann::json response_json(const ResponseHead& head, const ResponseBody& body);

// {"input_tokens","input_tokens_details":{"cached_tokens"},"output_tokens",
//  "output_tokens_details":{"reasoning_tokens"},"total_tokens"}.
nlohmann::json responses_usage_json(const Usage& usage);

// An assistant message item with one output_text part.
nlohmann::json message_item(const std::string& id, const std::string& text, std::string_view status);
// The output_text part of a message item.
nlohmann::json output_text_part(const std::string& text);
// A function_call item handing `call` to the client.
nlohmann::json function_call_item(const std::string& id, const ToolCall& call, std::string_view status);

// "resp_" and the 32 hex digits of a stored run id ("r_…"); other run ids (no store) follow "resp_".
std::string response_id_for_run(std::string_view run_id);
// The run id behind a response id; nullopt when `id` is not one keel gave out.
std::optional<std::string> run_id_of_response(std::string_view id);
// The id of a response's `n`-th item: `prefix` ("msg", "fc"), '_', the response's digits, n as 4 hex digits.
std::string item_id(std::string_view prefix, std::string_view response_id, int n);
// The response an item id of item_id() belongs to; nullopt for any other id.
std::optional<std::string> response_id_of_item(std::string_view item_id);

// One Server-Sent Event: "event: TYPE\ndata: JSON\n\n" (TYPE is the payload's "type").
std::string sse_event(const nlohmann::json& payload);

// The record kept in the store for a stored response: {"response":…,"input_items":[…]},
// wrapped as the run's host data ({"responses_api":record}).
std::string stored_record(const nlohmann::json& response, const nlohmann::json& input_items);
// The record from a run's host data; nullopt when it holds none.
std::optional<nlohmann::json> read_stored_record(const std::optional<std::string>& host_data);

// {"error":{"message","type","param","code"}} for a response id that names nothing kept: 404.
OpenAiError response_not_found(const std::string& id, std::string_view param);

}  // namespace keel::api
