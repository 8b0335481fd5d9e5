#include "api/responses_reply.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <utility>

#include "core/text/text_util.hpp"

namespace keel::api {
namespace responses_reply_impl {

using nlohmann::json;

constexpr std::string_view kResponsePrefix = "resp_";
constexpr size_t kDigits = 32;
constexpr std::string_view kRecordKey = "responses_api";

bool all_hex(std::string_view s) {
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

json number_or_null(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

}  // namespace responses_reply_impl

using nlohmann::json;

ResponseHead head_of(const ResponsesRequest& request, std::string id, int64_t created_at) {
  ResponseHead head;
  head.id = std::move(id);
  head.created_at = created_at;
  head.model = request.model;
  head.instructions = request.instructions;
  head.previous_response_id = request.previous_response_id;
  head.store = request.store;
  head.background = request.background;
  head.parallel_tool_calls = request.parallel_tool_calls;
  head.tools = request.tools;
  head.tool_choice = request.tool_choice_echo;
  head.text = request.text;
  head.metadata = request.metadata;
  head.sampling = request.sampling;
  return head;
}

json responses_usage_json(const Usage& usage) {
  return {{"input_tokens", usage.prompt_tokens},
          {"input_tokens_details", {{"cached_tokens", usage.cached_prompt_tokens}}},
          {"output_tokens", usage.completion_tokens},
          {"output_tokens_details", {{"reasoning_tokens", 0}}},
          {"total_tokens", usage.prompt_tokens + usage.completion_tokens}};
}

json response_json(const ResponseHead& head, const ResponseBody& body) {
  json r = {
      {"id", head.id},
      {"object", "response"},
      {"created_at", head.created_at},
      {"status", body.status},
      {"background", head.background},
      {"completed_at", body.completed_at > 0 ? json(body.completed_at) : json(nullptr)},
      {"error", body.error},
      {"incomplete_details", nullptr},
      {"instructions", head.instructions},
      {"max_output_tokens", head.sampling.max_tokens ? json(*head.sampling.max_tokens) : json(nullptr)},
      {"max_tool_calls", nullptr},
      {"model", head.model},
      {"output", body.output},
      {"parallel_tool_calls", head.parallel_tool_calls},
      {"previous_response_id", head.previous_response_id.empty() ? json(nullptr) : json(head.previous_response_id)},
      {"reasoning", {{"effort", nullptr}, {"summary", nullptr}}},
      {"service_tier", "default"},
      {"store", head.store},
      {"temperature", responses_reply_impl::number_or_null(head.sampling.temperature)},
      {"text", head.text.is_null() ? json{{"format", {{"type", "text"}}}} : head.text},
      {"tool_choice", head.tool_choice},
      {"tools", head.tools},
      {"top_logprobs", 0},
      {"top_p", responses_reply_impl::number_or_null(head.sampling.top_p)},
      {"truncation", "disabled"},
      {"usage", body.usage ? responses_usage_json(*body.usage) : json(nullptr)},
      {"user", nullptr},
      {"metadata", head.metadata.is_null() ? json::object() : head.metadata}};
  if (!body.keel.is_null()) r["keel"] = body.keel;
  return r;
}

json output_text_part(const std::string& text) {
  return {{"type", "output_text"}, {"text", text}, {"annotations", json::array()}, {"logprobs", json::array()}};
}

json message_item(const std::string& id, const std::string& text, std::string_view status) {
  return {{"id", id},
          {"type", "message"},
          {"status", status},
          {"role", "assistant"},
          {"content", json::array({output_text_part(text)})}};
}

json function_call_item(const std::string& id, const ToolCall& call, std::string_view status) {
  return {{"id", id},           {"type", "function_call"}, {"status", status},
          {"call_id", call.id}, {"name", call.name},       {"arguments", call.arguments}};
}

std::string response_id_for_run(std::string_view run_id) {
  if (run_id.rfind("r_", 0) == 0) run_id.remove_prefix(2);
  return detail::concat({responses_reply_impl::kResponsePrefix, run_id});
}

std::optional<std::string> run_id_of_response(std::string_view id) {
  if (id.rfind(responses_reply_impl::kResponsePrefix, 0) != 0) return std::nullopt;
  std::string_view digits = id.substr(responses_reply_impl::kResponsePrefix.size());
  if (digits.size() != responses_reply_impl::kDigits || !responses_reply_impl::all_hex(digits)) return std::nullopt;
  return detail::concat({"r_", digits});
}

std::string item_id(std::string_view prefix, std::string_view response_id, int n) {
  std::string_view digits =
      response_id.substr(std::min(response_id.size(), responses_reply_impl::kResponsePrefix.size()));
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "%04x", static_cast<unsigned>(n) & 0xffffu);
  return detail::concat({prefix, "_", digits, suffix});
}

std::optional<std::string> response_id_of_item(std::string_view item_id) {
  size_t underscore = item_id.find('_');
  if (underscore == std::string_view::npos) return std::nullopt;
  std::string_view rest = item_id.substr(underscore + 1);
  if (rest.size() != responses_reply_impl::kDigits + 4 || !responses_reply_impl::all_hex(rest)) return std::nullopt;
  return detail::concat({responses_reply_impl::kResponsePrefix, rest.substr(0, responses_reply_impl::kDigits)});
}

std::string sse_event(const json& payload) {
  std::string out = "event: ";
  out.append(payload.value("type", "message"));
  out.append("\ndata: ");
  out.append(payload.dump(-1, ' ', false, json::error_handler_t::replace));
  out.append("\n\n");
  return out;
}

std::string stored_record(const json& response, const json& input_items) {
  json record = {{"response", response}, {"input_items", input_items}};
  return json{{responses_reply_impl::kRecordKey, std::move(record)}}.dump(-1, ' ', false,
                                                                          json::error_handler_t::replace);
}

std::optional<json> read_stored_record(const std::optional<std::string>& host_data) {
  if (!host_data || host_data->empty()) return std::nullopt;
  json parsed = json::parse(*host_data, nullptr, false);
  if (!parsed.is_object()) return std::nullopt;
  auto it = parsed.find(responses_reply_impl::kRecordKey);
  if (it == parsed.end() || !it->is_object() || !it->contains("response")) return std::nullopt;
  return std::move(*it);
}

OpenAiError response_not_found(const std::string& id, std::string_view param) {
  OpenAiError e;
  e.status = 404;
  e.param = std::string(param);
  e.code = "not_found";
  e.message = detail::concat({"Response with id '", id, "' not found."});
  return e;
}

}  // namespace keel::api
