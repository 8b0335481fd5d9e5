// In-place reading of a chat completion; see completion_view.hpp.
#include "llm/completion_view.hpp"

#include <string>

#include "llm/json_view_fields.hpp"

namespace keel::detail {
namespace {

// Whether the body's parts have the shapes read here (see the header).
bool plain_parts(const JsonView& usage, const JsonView& message) {
  if (usage.is_object() && !plain_usage(usage)) return false;
  static constexpr std::string_view kMessage[] = {"content", "tool_calls"};
  const auto [content, calls] = message.find_each(kMessage);
  if (!absent_or_null(content) && !content->is_string()) return false;
  if (calls && calls->is_array()) {
    JsonView::Items items = calls->items();
    JsonView key, call;
    while (items.next(key, call)) {
      if (call.is_object() && !text_arguments(call)) return false;
    }
  }
  return true;
}

ToolCall read_call(const JsonView& call) {
  static constexpr std::string_view kCall[] = {"id", "function"};
  const auto [id, fn] = call.find_each(kCall);
  ToolCall out;
  out.id = string_or_empty(id);
  if (fn && fn->is_object()) {
    static constexpr std::string_view kFunction[] = {"name", "arguments"};
    const auto [name, arguments] = fn->find_each(kFunction);
    out.name = string_or_empty(name);
    out.arguments = string_or_empty(arguments);  // text or null here
    if (out.arguments.empty()) out.arguments = "{}";
  }
  return out;
}

}  // namespace

bool plain_usage(const JsonView& usage) {
  static constexpr std::string_view kUsage[] = {"prompt_tokens", "completion_tokens", "prompt_tokens_details"};
  const auto [prompt, completion, details] = usage.find_each(kUsage);
  if (inexact_number(prompt) || inexact_number(completion)) return false;
  return !(details && details->is_object() && inexact_number(details->find("cached_tokens")));
}

void read_usage_counts(const JsonView& usage, Usage& out) {
  static constexpr std::string_view kUsage[] = {"prompt_tokens", "completion_tokens", "prompt_tokens_details"};
  const auto [prompt, completion, details] = usage.find_each(kUsage);
  if (prompt && prompt->type() == JsonType::kNumber) out.prompt_tokens = int64_value(*prompt).value_or(0);
  if (completion && completion->type() == JsonType::kNumber)
    out.completion_tokens = int64_value(*completion).value_or(0);
  std::optional<JsonView> cached;
  if (details && details->is_object()) cached = details->find("cached_tokens");
  out.cached_prompt_tokens = cached ? int64_value(*cached).value_or(0) : 0;
}

bool text_arguments(const JsonView& call) {
  const std::optional<JsonView> fn = call.find("function");
  if (!fn || !fn->is_object()) return true;
  const std::optional<JsonView> arguments = fn->find("arguments");
  return absent_or_null(arguments) || arguments->is_string();
}

std::optional<ModelReply> read_plain_completion(std::string_view body) {
  JsonIndex index;
  const StrictJson scanned = scan_strict_json(body, &index);
  if (!scanned.ok) return std::nullopt;
  const JsonView root(body.substr(scanned.begin, scanned.end - scanned.begin), &index);
  if (!root.is_object()) return std::nullopt;
  static constexpr std::string_view kTop[] = {"error", "choices", "model", "usage"};
  const auto [error, choices, model, usage] = root.find_each(kTop);
  if (!absent_or_null(error) || !choices || !choices->is_array()) return std::nullopt;
  JsonView::Items items = choices->items();
  JsonView key, choice;
  if (!items.next(key, choice) || !choice.is_object()) return std::nullopt;
  static constexpr std::string_view kChoice[] = {"message", "finish_reason"};
  const auto [message, finish_reason] = choice.find_each(kChoice);
  if (!message || !message->is_object()) return std::nullopt;
  if (!plain_parts(usage.value_or(JsonView()), *message)) return std::nullopt;

  ModelReply reply;
  reply.model = string_or_empty(model);
  reply.finish_reason = string_or_empty(finish_reason);
  if (usage && usage->is_object()) read_usage_counts(*usage, reply.usage);
  static constexpr std::string_view kMessage[] = {"content", "refusal", "reasoning_content", "reasoning", "tool_calls"};
  const auto [content, refusal, reasoning_content, reasoning, calls] = message->find_each(kMessage);
  reply.text = string_or_empty(content);
  if (reply.text.empty()) reply.text = string_or_empty(refusal);  // a refusal is what the user must read
  reply.reasoning = string_or_empty(reasoning_content);
  if (reply.reasoning.empty()) reply.reasoning = string_or_empty(reasoning);
  if (calls && calls->is_array()) {
    JsonView::Items call_items = calls->items();
    JsonView call_key, call;
    while (call_items.next(call_key, call)) {
      if (call.is_object()) reply.tool_calls.push_back(read_call(call));
    }
  }
  return reply;
}

}  // namespace keel::detail
