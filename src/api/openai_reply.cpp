#include "api/openai_reply.hpp"

#include <cstdio>
#include <random>
#include <utility>

namespace keel::api {
namespace {

using nlohmann::json;

json null_if_empty(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

std::string event(const json& payload) {
  std::string out = "data: ";
  out.append(payload.dump(-1, ' ', false, json::error_handler_t::replace));
  out.append("\n\n");
  return out;
}

json error_json(const OpenAiError& error) {
  json e = {{"message", error.message},
            {"type", error.type},
            {"param", null_if_empty(error.param)},
            {"code", null_if_empty(error.code)}};
  return json{{"error", std::move(e)}};
}

json chunk_base(const CompletionIds& ids) {
  return {{"id", ids.id}, {"object", "chat.completion.chunk"}, {"created", ids.created}, {"model", ids.model}};
}

}  // namespace

std::string new_completion_id() {
  thread_local std::mt19937_64 generator{std::random_device{}()};
  std::string id = "chatcmpl-";
  for (int i = 0; i < 3; ++i) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(generator()));
    id.append(hex, 8);
  }
  return id;
}

json model_json(const ProfileInfo& profile, int64_t created) {
  return {{"id", profile.name}, {"object", "model"}, {"created", created}, {"owned_by", "keel"}};
}

std::string models_body(const std::vector<ProfileInfo>& profiles, int64_t created) {
  json data = json::array();
  for (const ProfileInfo& p : profiles) data.push_back(model_json(p, created));
  return json{{"object", "list"}, {"data", std::move(data)}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

json usage_json(const Usage& usage) {
  return {{"prompt_tokens", usage.prompt_tokens},
          {"completion_tokens", usage.completion_tokens},
          {"total_tokens", usage.prompt_tokens + usage.completion_tokens}};
}

json keel_json(const RunOutcome& outcome) {
  return {{"session_id", outcome.session_id},
          {"run_id", outcome.run_id},
          {"rounds", outcome.rounds},
          {"tool_calls", outcome.tool_calls}};
}

json tool_calls_json(const std::vector<ToolCall>& calls, bool indexed) {
  json out = json::array();
  for (size_t i = 0; i < calls.size(); ++i) {
    json call = {{"id", calls[i].id},
                 {"type", "function"},
                 {"function", {{"name", calls[i].name}, {"arguments", calls[i].arguments}}}};
    if (indexed) call["index"] = i;
    out.push_back(std::move(call));
  }
  return out;
}

const char* finish_reason_of(const RunOutcome& outcome) { return outcome.client_calls.empty() ? "stop" : "tool_calls"; }

std::string completion_body(const CompletionIds& ids, const RunOutcome& outcome) {
  json message = {{"role", "assistant"}, {"content", outcome.answer}, {"refusal", nullptr}};
  if (!outcome.client_calls.empty()) {  // the client's tools: its to run, its results continue the run
    if (outcome.answer.empty()) message["content"] = nullptr;
    message["tool_calls"] = tool_calls_json(outcome.client_calls, false);
  }
  json choice = {{"index", 0}, {"message", std::move(message)}, {"logprobs", nullptr},
                 {"finish_reason", finish_reason_of(outcome)}};
  json body = {{"id", ids.id},
               {"object", "chat.completion"},
               {"created", ids.created},
               {"model", ids.model},
               {"choices", json::array({std::move(choice)})},
               {"usage", usage_json(outcome.usage)},
               {"keel", keel_json(outcome)}};
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string chunk_event(const CompletionIds& ids, json delta, json finish_reason, bool usage_null) {
  json chunk = chunk_base(ids);
  chunk["choices"] = json::array(
      {{{"index", 0}, {"delta", std::move(delta)}, {"logprobs", nullptr}, {"finish_reason", std::move(finish_reason)}}});
  if (usage_null) chunk["usage"] = nullptr;
  return event(chunk);
}

std::string stop_event(const CompletionIds& ids, const RunOutcome& outcome, bool usage_null) {
  json chunk = chunk_base(ids);
  chunk["choices"] = json::array(
      {{{"index", 0}, {"delta", json::object()}, {"logprobs", nullptr}, {"finish_reason", finish_reason_of(outcome)}}});
  if (usage_null) chunk["usage"] = nullptr;
  chunk["keel"] = keel_json(outcome);
  return event(chunk);
}

std::string tool_calls_event(const CompletionIds& ids, const std::vector<ToolCall>& calls, bool usage_null) {
  return chunk_event(ids, {{"tool_calls", tool_calls_json(calls, true)}}, nullptr, usage_null);
}

std::string usage_event(const CompletionIds& ids, const Usage& usage) {
  json chunk = chunk_base(ids);
  chunk["choices"] = json::array();
  chunk["usage"] = usage_json(usage);
  return event(chunk);
}

std::string error_event(const OpenAiError& error) { return event(error_json(error)); }

std::string done_event() { return "data: [DONE]\n\n"; }

std::string error_body(const OpenAiError& error) {
  return error_json(error).dump(-1, ' ', false, json::error_handler_t::replace);
}

void respond_openai_error(server::HttpResponder& responder, const OpenAiError& error, server::HttpHeaders headers) {
  if (!error.retryable) headers.emplace_back("x-should-retry", "false");
  server::respond_json(responder, error.status, error_body(error), std::move(headers));
}

OpenAiError run_failed_error(const RunOutcome& outcome) {
  OpenAiError e;
  e.status = 400;  // the one failure status no official client or agent SDK retries by default
  e.type = "run_failed";
  e.retryable = false;
  e.code = std::string(failure_kind_name(outcome.failure));
  e.message = outcome.error.empty() ? "the run failed without a message" : outcome.error;
  return e;
}

}  // namespace keel::api
