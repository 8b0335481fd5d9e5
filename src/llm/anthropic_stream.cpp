// Streamed Anthropic message assembly; see anthropic_stream.hpp.
#include "llm/anthropic_stream.hpp"

#include <exception>
#include <optional>
#include <utility>

#include "llm/anthropic_wire.hpp"
#include "llm/json_numbers.hpp"
#include "llm/openai_wire.hpp"
#include "llm/stream_assembler.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;

std::string stream_string(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int64_t stream_index(const json& payload) {
  const auto it = payload.find("index");
  return it != payload.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

// A token count that may be absent or null (then nullopt).
std::optional<int64_t> stream_count(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return number_as_count(*it);
}

const json* object_field(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_object() ? &*it : nullptr;
}

}  // namespace

Status AnthropicStreamAssembler::deliver(const std::function<void(std::string_view)>& fn, std::string_view text,
                                         const char* what) {
  if (text.empty()) return Status::Ok();
  if (fn) delivered_ = true;
  return invoke_text_callback(fn, text, what);
}

Status AnthropicStreamAssembler::on_event(std::string_view event, std::string_view data) {
  json payload;
  try {
    payload = json::parse(data, nullptr, /*allow_exceptions=*/false);
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("unreadable stream event: ") + e.what());
  }
  if (payload.is_discarded() || !payload.is_object()) {
    return Status::Unavailable("invalid JSON in stream event '" + std::string(event) + "': " + truncate_text(data, 200));
  }
  std::string type = stream_string(payload, "type");
  if (type.empty()) type = std::string(event);
  try {
    return on_payload(type, payload);
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("unexpected stream event: ") + e.what());
  }
}

Status AnthropicStreamAssembler::on_payload(const std::string& type, const json& payload) {
  if (type == "content_block_delta") return on_delta(payload);
  if (type == "content_block_start") {
    const json* block = object_field(payload, "content_block");
    if (block == nullptr) return Status::Ok();
    const std::string block_type = stream_string(*block, "type");
    if (block_type == "tool_use") {
      ToolBlock& tool = tools_[stream_index(payload)];
      tool.call.id = stream_string(*block, "id");
      tool.call.name = stream_string(*block, "name");
      const auto input = block->find("input");
      if (input != block->end() && input->is_object() && !input->empty()) tool.start_input = input->dump();
      return Status::Ok();
    }
    // A block may start with content of its own (usually empty).
    if (block_type == "text") return deliver_text(stream_string(*block, "text"));
    if (block_type == "thinking") return deliver_thinking(stream_string(*block, "thinking"));
    return Status::Ok();
  }
  if (type == "message_start") {
    if (const json* message = object_field(payload, "message")) {
      reply_.model = stream_string(*message, "model");
      KEEL_TRY(on_started_content(*message));
      if (const json* usage = object_field(*message, "usage")) {
        reply_.usage.prompt_tokens = anthropic_prompt_tokens(*usage);
        reply_.usage.cached_prompt_tokens = anthropic_cached_prompt_tokens(*usage);
        reply_.usage.completion_tokens = stream_count(*usage, "output_tokens").value_or(0);
      }
    }
    return Status::Ok();
  }
  if (type == "message_delta") {
    if (const json* delta = object_field(payload, "delta")) {
      const std::string stop = stream_string(*delta, "stop_reason");
      if (!stop.empty()) reply_.finish_reason = finish_reason_of(stop);
      // A refusal may come with no content at all: its explanation is then the answer.
      if (reply_.text.empty()) KEEL_TRY(deliver_text(anthropic_refusal_text(*delta)));
    }
    if (const json* usage = object_field(payload, "usage")) {
      // Counts here are cumulative; input counts appear only when they changed.
      if (auto out = stream_count(*usage, "output_tokens")) reply_.usage.completion_tokens = *out;
      if (stream_count(*usage, "input_tokens")) {
        reply_.usage.prompt_tokens = anthropic_prompt_tokens(*usage);
        reply_.usage.cached_prompt_tokens = anthropic_cached_prompt_tokens(*usage);
      }
    }
    return Status::Ok();
  }
  if (type == "message_stop") {
    stopped_ = true;
    return Status::Ok();
  }
  if (type == "error") {
    server_error_ = true;
    std::string text = anthropic_error_text(payload);
    if (text.empty()) text = truncate_text(payload.dump(), 300);
    return Status::Unavailable("the stream reported an error: " + text);
  }
  return Status::Ok();  // ping, content_block_stop and event types added later
}

Status AnthropicStreamAssembler::on_started_content(const json& message) {
  // A resumed turn (a programmatic tool call answered) may start with its blocks already in
  // message_start, and even its stop_reason, then stop without a single content block event.
  const auto content = message.find("content");
  if (content != message.end() && content->is_array()) {
    const int64_t count = static_cast<int64_t>(content->size());
    for (int64_t i = 0; i < count; ++i) {
      const json& block = (*content)[static_cast<size_t>(i)];
      if (!block.is_object()) continue;
      const std::string block_type = stream_string(block, "type");
      if (block_type == "text") KEEL_TRY(deliver_text(stream_string(block, "text")));
      if (block_type == "thinking") KEEL_TRY(deliver_thinking(stream_string(block, "thinking")));
      if (block_type != "tool_use") continue;
      // Keyed below 0: ahead of, and apart from, the indexes of blocks streamed after them.
      ToolBlock& tool = tools_[i - count];
      tool.call.id = stream_string(block, "id");
      tool.call.name = stream_string(block, "name");
      const auto input = block.find("input");
      if (input != block.end() && input->is_object()) tool.start_input = arguments_text(*input);
    }
  }
  const std::string stop = stream_string(message, "stop_reason");
  if (!stop.empty()) reply_.finish_reason = finish_reason_of(stop);
  return Status::Ok();
}

Status AnthropicStreamAssembler::on_delta(const json& payload) {
  const json* delta = object_field(payload, "delta");
  if (delta == nullptr) return Status::Ok();
  const std::string type = stream_string(*delta, "type");
  if (type == "text_delta") return deliver_text(stream_string(*delta, "text"));
  if (type == "thinking_delta") return deliver_thinking(stream_string(*delta, "thinking"));
  if (type == "input_json_delta") {
    // Only a tool_use block is a call for keel to run. A server-side block (server_tool_use: the
    // provider's own web search and the like, already run by the provider) streams its input the
    // same way and is left out.
    const auto tool = tools_.find(stream_index(payload));
    if (tool == tools_.end()) return Status::Ok();
    tool->second.call.arguments += stream_string(*delta, "partial_json");
    tool->second.got_delta = true;
  }
  return Status::Ok();  // signature_delta and others carry nothing keel keeps
}

Status AnthropicStreamAssembler::deliver_text(std::string_view text) {
  reply_.text += text;
  return deliver(options_.on_text, text, "on_text");
}

Status AnthropicStreamAssembler::deliver_thinking(std::string_view text) {
  reply_.reasoning += text;
  return deliver(options_.on_reasoning, text, "on_reasoning");
}

ModelReply AnthropicStreamAssembler::take_reply() {
  for (auto& [index, tool] : tools_) {
    ToolCall call = std::move(tool.call);
    if (!tool.got_delta || call.arguments.empty()) call.arguments = tool.start_input;
    if (call.arguments.empty()) call.arguments = "{}";
    reply_.tool_calls.push_back(std::move(call));
  }
  tools_.clear();
  return std::move(reply_);
}

}  // namespace keel::detail
