// Streamed chat-completion assembly; see stream_assembler.hpp.
#include "llm/stream_assembler.hpp"

#include <exception>
#include <string>

#include "llm/openai_wire.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;

std::string string_or_empty(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Adds a streamed piece of a name or id: the first piece sets it; a repeat of the whole value
// (some servers resend it in every delta) is ignored; anything else is a continuation.
void merge_piece(std::string& into, const std::string& piece) {
  if (piece.empty() || piece == into) return;
  into += piece;
}

// The usage object of a chunk: "usage", or else Groq's "x_groq": {"usage": ...} (where Groq
// streams have reported it, alone or besides the standard field).
const json* chunk_usage(const json& chunk) {
  if (const auto usage = chunk.find("usage"); usage != chunk.end() && usage->is_object()) return &*usage;
  const auto groq = chunk.find("x_groq");
  if (groq == chunk.end() || !groq->is_object()) return nullptr;
  const auto usage = groq->find("usage");
  return usage != groq->end() && usage->is_object() ? &*usage : nullptr;
}

}  // namespace

Status StreamAssembler::on_data(std::string_view data) {
  data = trim(data);
  if (data.empty()) return Status::Ok();  // keep-alive
  if (data == "[DONE]") {
    done_ = true;
    return Status::Ok();
  }
  try {
    const json chunk = json::parse(data, nullptr, /*allow_exceptions=*/false);
    if (chunk.is_discarded()) {
      return Status::Unavailable("invalid JSON in stream event from server: " + truncate_text(data, 200));
    }
    return on_chunk(chunk);
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("unexpected stream event from server: ") + e.what());
  }
}

Status StreamAssembler::on_chunk(const json& chunk) {
  if (auto error = embedded_error(chunk)) {
    error_http_status_ = embedded_error_status(chunk);
    return Status::Unavailable("server reported an error in the stream: " + *error);
  }
  if (!chunk.is_object()) {
    return Status::Unavailable("unexpected stream event from server: " + truncate_text(chunk.dump(), 200));
  }
  if (reply_.model.empty()) reply_.model = string_or_empty(chunk, "model");
  if (const json* usage = chunk_usage(chunk)) {
    for (const auto& [key, field] : {std::pair{"prompt_tokens", &Usage::prompt_tokens},
                                     std::pair{"completion_tokens", &Usage::completion_tokens}}) {
      const auto it = usage->find(key);
      if (it != usage->end() && it->is_number()) reply_.usage.*field = it->get<int64_t>();
    }
    reply_.usage.cached_prompt_tokens = openai_cached_prompt_tokens(*usage);
  }
  const auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array()) return Status::Ok();
  for (const json& choice : *choices) {
    if (!choice.is_object()) continue;
    const auto index = choice.find("index");
    if (index != choice.end() && index->is_number() && index->get<int64_t>() != 0) continue;  // n > 1
    if (const auto delta = choice.find("delta"); delta != choice.end() && delta->is_object()) {
      KEEL_TRY(on_delta(*delta));
    }
    std::string finish = string_or_empty(choice, "finish_reason");
    if (!finish.empty()) reply_.finish_reason = std::move(finish);
  }
  return Status::Ok();
}

Status StreamAssembler::on_delta(const json& delta) {
  std::string text, reasoning;
  if (const auto content = delta.find("content"); content != delta.end()) {
    text = content_text(*content);
    reasoning = content_thinking(*content);  // Mistral's thinking parts
  }
  text += string_or_empty(delta, "refusal");  // a refusal streams here; the user reads it as the answer
  if (!text.empty()) {
    reply_.text += text;
    KEEL_TRY(deliver(options_.on_text, text, "on_text"));
  }
  if (reasoning.empty()) reasoning = string_or_empty(delta, "reasoning_content");
  if (reasoning.empty()) reasoning = string_or_empty(delta, "reasoning");
  if (!reasoning.empty()) {
    reply_.reasoning += reasoning;
    KEEL_TRY(deliver(options_.on_reasoning, reasoning, "on_reasoning"));
  }
  if (const auto calls = delta.find("tool_calls"); calls != delta.end() && calls->is_array()) {
    for (const json& call : *calls) {
      if (call.is_object()) on_tool_delta(call);
    }
  }
  return Status::Ok();
}

void StreamAssembler::on_tool_delta(const json& delta) {
  const std::string id = string_or_empty(delta, "id");
  int64_t index;
  if (const auto it = delta.find("index"); it != delta.end() && it->is_number_integer()) {
    index = it->get<int64_t>();
  } else if (last_index_ >= 0 && (id.empty() || id == calls_[last_index_].id)) {
    index = last_index_;  // a server without indexes: a delta without a new id continues the last call
  } else {
    index = calls_.empty() ? 0 : calls_.rbegin()->first + 1;
  }
  last_index_ = index;
  ToolCall& call = calls_[index];
  if (call.id.empty()) call.id = id;
  if (const auto fn = delta.find("function"); fn != delta.end() && fn->is_object()) {
    merge_piece(call.name, string_or_empty(*fn, "name"));
    if (const auto args = fn->find("arguments"); args != fn->end()) {
      if (args->is_string()) {
        call.arguments += args->get<std::string>();
      } else if (!args->is_null()) {
        call.arguments = arguments_text(*args);  // a whole object at once
      }
    }
  }
}

Status invoke_text_callback(const std::function<void(std::string_view)>& fn, std::string_view text,
                            const char* what) {
  if (!fn) return Status::Ok();
  try {
    fn(text);
  } catch (const std::exception& e) {
    return Status::Internal(std::string("the ") + what + " callback threw: " + e.what());
  } catch (...) {
    return Status::Internal(std::string("the ") + what + " callback threw a non-standard exception");
  }
  return Status::Ok();
}

ModelReply StreamAssembler::take_reply() {
  for (auto& [index, call] : calls_) {
    if (call.arguments.empty()) call.arguments = "{}";
    reply_.tool_calls.push_back(std::move(call));
  }
  calls_.clear();
  return std::move(reply_);
}

}  // namespace keel::detail
