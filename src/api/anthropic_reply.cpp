#include "api/anthropic_reply.hpp"

#include <cstdio>
#include <random>
#include <utility>

#include "api/openai_reply.hpp"

namespace keel::api {

using nlohmann::json;

namespace anthropic_reply_detail {

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace anthropic_reply_detail

std::string new_message_id() {
  thread_local std::mt19937_64 generator{std::random_device{}()};
  std::string id = "msg_";
  for (int i = 0; i < 3; ++i) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(generator()));
    id.append(hex, 8);
  }
  return id;
}

std::string stop_reason_of(const RunOutcome& outcome, std::string_view last_finish) {
  if (!outcome.client_calls.empty()) return "tool_use";
  if (last_finish == "length" || last_finish == "max_tokens") return "max_tokens";
  return "end_turn";
}

json anthropic_usage_json(const Usage& usage) {
  return {{"input_tokens", usage.prompt_tokens}, {"output_tokens", usage.completion_tokens}};
}

json tool_use_json(const ToolCall& call) {
  json input = json::parse(call.arguments, nullptr, /*allow_exceptions=*/false);
  if (!input.is_object()) input = json::object();
  return {{"type", "tool_use"}, {"id", call.id}, {"name", call.name}, {"input", std::move(input)}};
}

std::string message_body(const MessageIds& ids, const RunOutcome& outcome, std::string_view stop_reason) {
  json content = json::array();
  if (!outcome.answer.empty()) content.push_back({{"type", "text"}, {"text", outcome.answer}});
  for (const ToolCall& call : outcome.client_calls) content.push_back(tool_use_json(call));
  json body = {{"id", ids.id},
               {"type", "message"},
               {"role", "assistant"},
               {"model", ids.model},
               {"content", std::move(content)},
               {"stop_reason", stop_reason},
               {"stop_sequence", nullptr},
               {"usage", anthropic_usage_json(outcome.usage)},
               {"keel", keel_json(outcome)}};
  return anthropic_reply_detail::dump(body);
}

json message_start_json(const MessageIds& ids) {
  return {{"id", ids.id},
          {"type", "message"},
          {"role", "assistant"},
          {"model", ids.model},
          {"content", json::array()},
          {"stop_reason", nullptr},
          {"stop_sequence", nullptr},
          {"usage", anthropic_usage_json(Usage{})}};
}

std::string sse_event(std::string_view name, const json& payload) {
  std::string out = "event: ";
  out.append(name).append("\ndata: ").append(anthropic_reply_detail::dump(payload)).append("\n\n");
  return out;
}

std::string anthropic_error_type(int status) {
  switch (status) {
    case 400: return "invalid_request_error";
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 529: return "overloaded_error";
    default: return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

std::string anthropic_error_body(std::string_view type, std::string_view message) {
  return anthropic_reply_detail::dump(json{{"type", "error"}, {"error", {{"type", type}, {"message", message}}}});
}

void respond_anthropic_error(server::HttpResponder& responder, const AnthropicError& error, server::HttpHeaders headers) {
  if (!error.retryable) headers.emplace_back("x-should-retry", "false");
  server::respond_json(responder, error.status, anthropic_error_body(error.type, error.message), std::move(headers));
}

std::string anthropic_error_event(const AnthropicError& error) {
  return sse_event("error", json::parse(anthropic_error_body(error.type, error.message)));
}

AnthropicError messages_run_failed_error(const RunOutcome& outcome) {
  AnthropicError e;
  e.status = 400;
  e.type = "api_error";
  e.message = outcome.error.empty() ? "the run failed without a message" : outcome.error;
  e.retryable = false;
  return e;
}

}  // namespace keel::api
