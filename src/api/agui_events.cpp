#include "api/agui_events.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include "base/random_token.hpp"

namespace keel::api::agui {

using nlohmann::json;

std::string frame(const json& event) {
  std::string out = "data: ";
  out.append(event.dump(-1, ' ', false, json::error_handler_t::replace));
  out.append("\n\n");
  return out;
}

json run_started(std::string_view thread_id, std::string_view run_id) {
  return {{"type", "RUN_STARTED"}, {"threadId", thread_id}, {"runId", run_id}};
}

json run_finished(std::string_view thread_id, std::string_view run_id, const std::vector<std::string>& pending,
                  const Usage& usage) {
  json outcome = {{"type", "success"}};
  if (!pending.empty()) outcome["pendingToolCallIds"] = pending;
  json event = {{"type", "RUN_FINISHED"}, {"threadId", thread_id}, {"runId", run_id}, {"outcome", std::move(outcome)}};
  if (usage.prompt_tokens > 0 || usage.completion_tokens > 0) {
    event["usage"] = json::array({{{"inputTokens", usage.prompt_tokens},
                                   {"outputTokens", usage.completion_tokens},
                                   {"totalTokens", usage.prompt_tokens + usage.completion_tokens}}});
  }
  return event;
}

json run_error(std::string_view message, std::string_view code) {
  json event = {{"type", "RUN_ERROR"}, {"message", message}};
  if (!code.empty()) event["code"] = code;
  return event;
}

json state_snapshot(json snapshot) {
  return {{"type", "STATE_SNAPSHOT"}, {"snapshot", std::move(snapshot)}};
}

json text_message_start(std::string_view message_id) {
  return {{"type", "TEXT_MESSAGE_START"}, {"messageId", message_id}, {"role", "assistant"}};
}

json text_message_content(std::string_view message_id, std::string_view delta) {
  return {{"type", "TEXT_MESSAGE_CONTENT"}, {"messageId", message_id}, {"delta", delta}};
}

json text_message_end(std::string_view message_id) {
  return {{"type", "TEXT_MESSAGE_END"}, {"messageId", message_id}};
}

json tool_call_start(std::string_view call_id, std::string_view name, std::string_view parent_message_id) {
  json event = {{"type", "TOOL_CALL_START"}, {"toolCallId", call_id}, {"toolCallName", name}};
  if (!parent_message_id.empty()) event["parentMessageId"] = parent_message_id;
  return event;
}

json tool_call_args(std::string_view call_id, std::string_view delta) {
  return {{"type", "TOOL_CALL_ARGS"}, {"toolCallId", call_id}, {"delta", delta}};
}

json tool_call_end(std::string_view call_id) {
  return {{"type", "TOOL_CALL_END"}, {"toolCallId", call_id}};
}

json tool_call_result(std::string_view message_id, std::string_view call_id, std::string_view content) {
  return {{"type", "TOOL_CALL_RESULT"},
          {"messageId", message_id},
          {"toolCallId", call_id},
          {"content", content},
          {"role", "tool"}};
}

json custom(std::string_view name, json value) {
  return {{"type", "CUSTOM"}, {"name", name}, {"value", std::move(value)}};
}

std::string new_message_id() {
  return "msg_" + detail::random_hex(12);
}

std::string run_tag(std::string_view run_id) {
  std::string tag;
  for (auto it = run_id.rbegin(); it != run_id.rend() && tag.size() < 8; ++it) {
    if (std::isxdigit(static_cast<unsigned char>(*it))) tag.push_back(*it);
  }
  std::reverse(tag.begin(), tag.end());
  return tag.empty() ? detail::random_hex(4) : tag;
}

std::string agui_call_id(std::string_view keel_call_id, std::string_view tag) {
  std::string id(keel_call_id);
  id.push_back('~');
  id.append(tag);
  return id;
}

bool keel_call_id_matches(std::string_view agui_id, std::string_view keel_call_id) {
  if (agui_id == keel_call_id) return true;
  if (agui_id.size() <= keel_call_id.size() + 1 || agui_id.substr(0, keel_call_id.size()) != keel_call_id ||
      agui_id[keel_call_id.size()] != '~') {
    return false;
  }
  std::string_view tag = agui_id.substr(keel_call_id.size() + 1);
  return std::all_of(tag.begin(), tag.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace keel::api::agui
