// Streamed chat-completion assembly; see stream_assembler.hpp.
#include "llm/stream_assembler.hpp"

#include <exception>
#include <string>

#include "llm/json_view_fields.hpp"
#include "llm/completion_view.hpp"
#include "llm/json_numbers.hpp"
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

// Whether every tool delta of `calls` is one the view reading handles: arguments as text, an
// index that is an integer when it is a number.
bool plain_tool_deltas(const JsonView& calls) {
  JsonView::Items items = calls.items();
  JsonView key, call;
  while (items.next(key, call)) {
    if (!call.is_object()) continue;
    if (inexact_number(call.find("index")) || !text_arguments(call)) return false;
  }
  return true;
}

// Whether a chunk has only the shapes of text, reasoning, tool-call deltas and usage: no error, no
// Groq usage, content as text, integer indexes and counts. The rest is read through a document.
bool plain_chunk(const JsonView& chunk) {
  if (!chunk.is_object()) return false;
  static constexpr std::string_view kTop[] = {"error", "usage", "x_groq", "choices"};
  const auto [error, usage, groq, choices] = chunk.find_each(kTop);
  if (!absent_or_null(error) || !absent_or_null(groq)) return false;
  if (usage && usage->is_object() && !plain_usage(*usage)) return false;
  if (!choices || !choices->is_array()) return true;
  JsonView::Items items = choices->items();
  JsonView key, choice;
  while (items.next(key, choice)) {
    if (!choice.is_object()) continue;
    static constexpr std::string_view kChoice[] = {"index", "delta"};
    const auto [index, delta] = choice.find_each(kChoice);
    if (inexact_number(index)) return false;
    if (!delta || !delta->is_object()) continue;
    static constexpr std::string_view kDelta[] = {"content", "tool_calls"};
    const auto [content, calls] = delta->find_each(kDelta);
    if (!absent_or_null(content) && !content->is_string()) return false;
    if (calls && calls->is_array() && !plain_tool_deltas(*calls)) return false;
  }
  return true;
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
    if (!documents_only_) {
      const StrictJson scanned = scan_strict_json(data, &index_);
      if (!scanned.ok) {
        return Status::Unavailable("invalid JSON in stream event from server: " + truncate_text(data, 200));
      }
      const JsonView chunk(data.substr(scanned.begin, scanned.end - scanned.begin), &index_);
      if (plain_chunk(chunk)) return on_plain_chunk(chunk);
    }
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
      if (it != usage->end() && it->is_number()) reply_.usage.*field = number_as_count(*it);
    }
    reply_.usage.cached_prompt_tokens = openai_cached_prompt_tokens(*usage);
  }
  const auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array()) return Status::Ok();
  for (const json& choice : *choices) {
    if (!choice.is_object()) continue;
    const auto index = choice.find("index");
    if (index != choice.end() && index->is_number() && number_as_count(*index) != 0) continue;  // n > 1
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

int64_t StreamAssembler::implied_index(const std::string& id) const {
  if (last_index_ >= 0) {
    // A server without indexes: a delta without a new id continues the last call.
    const auto last = calls_.find(last_index_);
    if (id.empty() || (last != calls_.end() && id == last->second.id)) return last_index_;
  }
  return calls_.empty() ? 0 : calls_.rbegin()->first + 1;
}

void StreamAssembler::on_tool_delta(const json& delta) {
  const std::string id = string_or_empty(delta, "id");
  int64_t index;
  if (const auto it = delta.find("index"); it != delta.end() && it->is_number_integer()) {
    index = it->get<int64_t>();
  } else {
    index = implied_index(id);
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

Status StreamAssembler::on_plain_chunk(const JsonView& chunk) {
  static constexpr std::string_view kTop[] = {"model", "usage", "choices"};
  const auto [model, usage, choices] = chunk.find_each(kTop);
  if (reply_.model.empty()) reply_.model = string_or_empty(model);
  if (usage && usage->is_object()) read_usage_counts(*usage, reply_.usage);
  if (!choices || !choices->is_array()) return Status::Ok();
  JsonView::Items items = choices->items();
  JsonView key, choice;
  while (items.next(key, choice)) {
    if (!choice.is_object()) continue;
    static constexpr std::string_view kChoice[] = {"index", "delta", "finish_reason"};
    const auto [index, delta, finish_reason] = choice.find_each(kChoice);
    if (index && index->type() == JsonType::kNumber && int64_value(*index) != 0) continue;  // n > 1
    if (delta && delta->is_object()) KEEL_TRY(on_plain_delta(*delta));
    std::string finish = string_or_empty(finish_reason);
    if (!finish.empty()) reply_.finish_reason = std::move(finish);
  }
  return Status::Ok();
}

Status StreamAssembler::on_plain_delta(const JsonView& delta) {
  static constexpr std::string_view kDelta[] = {"content", "refusal", "reasoning_content", "reasoning", "tool_calls"};
  const auto [content, refusal, reasoning_content, reasoning_field, calls] = delta.find_each(kDelta);
  std::string text = string_or_empty(content);  // text or null here: no thinking parts
  text += string_or_empty(refusal);
  if (!text.empty()) {
    reply_.text += text;
    KEEL_TRY(deliver(options_.on_text, text, "on_text"));
  }
  std::string reasoning = string_or_empty(reasoning_content);
  if (reasoning.empty()) reasoning = string_or_empty(reasoning_field);
  if (!reasoning.empty()) {
    reply_.reasoning += reasoning;
    KEEL_TRY(deliver(options_.on_reasoning, reasoning, "on_reasoning"));
  }
  if (calls && calls->is_array()) {
    JsonView::Items items = calls->items();
    JsonView key, call;
    while (items.next(key, call)) {
      if (call.is_object()) on_plain_tool_delta(call);
    }
  }
  return Status::Ok();
}

void StreamAssembler::on_plain_tool_delta(const JsonView& delta) {
  static constexpr std::string_view kKeys[] = {"id", "index", "function"};
  const auto [id_field, index_field, fn] = delta.find_each(kKeys);
  const std::string id = string_or_empty(id_field);
  const std::optional<int64_t> given = index_field ? int64_value(*index_field) : std::nullopt;
  const int64_t index = given ? *given : implied_index(id);
  last_index_ = index;
  ToolCall& call = calls_[index];
  if (call.id.empty()) call.id = id;
  if (!fn || !fn->is_object()) return;
  static constexpr std::string_view kFunction[] = {"name", "arguments"};
  const auto [name, arguments] = fn->find_each(kFunction);
  merge_piece(call.name, string_or_empty(name));
  if (arguments && arguments->is_string()) call.arguments += arguments->str();  // text here, or null
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
