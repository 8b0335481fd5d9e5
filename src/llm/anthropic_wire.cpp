// Anthropic Messages JSON mapping; see anthropic_wire.hpp.
#include "llm/anthropic_wire.hpp"

#include <exception>

#include "core/parsing/json/json_text.hpp"
#include "llm/json_numbers.hpp"
#include "llm/openai_wire.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;

bool anth_is_object_text(std::string_view text) {
  const size_t open = text.find_first_not_of(" \t\r\n");
  return open != std::string_view::npos && text[open] == '{' && is_json_value(text);
}

std::string anth_string(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int64_t anth_int(const json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? 0 : number_as_count(*it);
}

// Writes the "messages" array, opening a new message only when the role changes so that
// consecutive same-role content lands in one message (the API wants user/assistant alternation).
// Like the OpenAI body, it is written straight into a string (see core/parsing/json/json_text.hpp).
// Thread-safety: not thread-safe; one writer per request body.
class AnthropicMessageWriter {
 public:
  explicit AnthropicMessageWriter(std::string& out) : out_(out) {}

  void add(const Message& m) {
    switch (m.role) {
      case Role::kSystem:
        if (m.content.empty()) break;
        if (!system_.empty()) system_ += "\n\n";
        system_ += m.content;
        break;
      case Role::kUser:
        text_block("user", m.content);
        break;
      case Role::kAssistant:
        // Separated reasoning is not sent back: the API only accepts thinking blocks with the
        // signature it issued, which keel does not keep.
        text_block("assistant", m.content);
        for (const ToolCall& call : m.tool_calls) tool_use_block(call);
        break;
      case Role::kTool:
        tool_result_block(m);
        break;
    }
  }

  // Closes the last message; returns the joined system text.
  const std::string& finish() {
    if (!role_.empty()) out_ += "]}";
    role_.clear();
    return system_;
  }

 private:
  void open(std::string_view role) {
    if (role_ == role) {
      out_ += ',';
      return;
    }
    if (!role_.empty()) out_ += "]},";
    role_ = role;
    out_ += "{\"role\":\"";
    out_ += role;
    out_ += "\",\"content\":[";
  }

  void text_block(std::string_view role, const std::string& text) {
    if (text.empty()) return;
    open(role);
    out_ += "{\"type\":\"text\",\"text\":";
    append_json_string(out_, text);
    out_ += '}';
  }

  void tool_use_block(const ToolCall& call) {
    open("assistant");
    out_ += "{\"type\":\"tool_use\",\"id\":";
    append_json_string(out_, call.id);
    out_ += ",\"name\":";
    append_json_string(out_, call.name);
    out_ += ",\"input\":";
    // The API requires an object; arguments that are not one were already answered with an error.
    out_ += anth_is_object_text(call.arguments) ? std::string_view(call.arguments) : std::string_view("{}");
    out_ += '}';
  }

  void tool_result_block(const Message& m) {
    open("user");
    out_ += "{\"type\":\"tool_result\",\"tool_use_id\":";
    append_json_string(out_, m.tool_call_id);
    if (!m.content.empty()) {
      out_ += ",\"content\":";
      append_json_string(out_, m.content);
    }
    const auto status = m.metadata.find("status");
    if (status != m.metadata.end() && status->second != "ok") out_ += ",\"is_error\":true";
    out_ += '}';
  }

  std::string& out_;
  std::string role_;  // role of the open message; empty when none is open
  std::string system_;
};

Status append_anthropic_tools(std::string& out, const ModelRequest& request) {
  out += ",\"tools\":[";
  bool first = true;
  for (const ToolSpec& spec : request.tools) {
    if (!anth_is_object_text(spec.parameters_schema)) {
      return Status::InvalidArgument("tool '" + spec.name + "' has a parameters_schema that is not a JSON object: " +
                                     truncate_text(spec.parameters_schema, 200));
    }
    if (!first) out += ',';
    first = false;
    out += "{\"name\":";
    append_json_string(out, spec.name);
    out += ",\"description\":";
    append_json_string(out, spec.description);
    out += ",\"input_schema\":";
    out += spec.parameters_schema;
    out += '}';
  }
  out += ']';
  const std::string_view choice = request.tool_choice;
  if (!request.tools_enabled || choice == "none") {
    out += ",\"tool_choice\":{\"type\":\"none\"}";
  } else if (choice == "required") {
    out += ",\"tool_choice\":{\"type\":\"any\"}";
  } else if (!choice.empty() && choice != "auto") {
    out += ",\"tool_choice\":{\"type\":\"tool\",\"name\":";
    append_json_string(out, choice);
    out += '}';
  }
  return Status::Ok();
}

Result<ModelReply> parse_anthropic_message(const json& body) {
  if (std::string error = anthropic_error_text(body); !error.empty()) {
    return Status::Unavailable("server reported an error: " + error);
  }
  if (!body.is_object()) return Status::Unavailable("reply is not a JSON object");
  const auto content = body.find("content");
  if (content == body.end() || !content->is_array()) {
    return Status::Unavailable("reply is not a message (no content array): " + truncate_text(body.dump(), 300));
  }
  ModelReply reply;
  reply.model = anth_string(body, "model");
  reply.finish_reason = finish_reason_of(anth_string(body, "stop_reason"));
  if (const auto usage = body.find("usage"); usage != body.end() && usage->is_object()) {
    reply.usage.prompt_tokens = anthropic_prompt_tokens(*usage);
    reply.usage.cached_prompt_tokens = anthropic_cached_prompt_tokens(*usage);
    reply.usage.completion_tokens = anth_int(*usage, "output_tokens");
  }
  for (const json& block : *content) {
    if (!block.is_object()) continue;
    const std::string type = anth_string(block, "type");
    if (type == "text") {
      reply.text += anth_string(block, "text");
    } else if (type == "thinking") {
      reply.reasoning += anth_string(block, "thinking");
    } else if (type == "tool_use") {
      ToolCall call;
      call.id = anth_string(block, "id");
      call.name = anth_string(block, "name");
      const auto input = block.find("input");
      call.arguments = arguments_text(input == block.end() ? json(nullptr) : *input);
      reply.tool_calls.push_back(std::move(call));
    }
  }
  // A refusal may come with no content at all: its explanation is then the answer.
  if (reply.text.empty()) reply.text = anthropic_refusal_text(body);
  return reply;
}

}  // namespace

Result<std::string> build_messages_request(const ModelRequest& request, const AnthropicWireOptions& options) {
  try {
    std::string messages;
    messages.reserve(4096);
    AnthropicMessageWriter writer(messages);
    request.for_each_message([&](const Message& m) { writer.add(m); });
    const std::string& system = writer.finish();

    std::string out;
    out.reserve(messages.size() + system.size() + 256);
    out += "{\"model\":";
    append_json_string(out, options.model);
    const SamplingParams& s = request.sampling;
    out += ",\"max_tokens\":";
    out += std::to_string(s.max_tokens ? *s.max_tokens : options.max_tokens);
    if (!system.empty()) {
      out += ",\"system\":";
      append_json_string(out, system);
    }
    out += ",\"messages\":[";
    out += messages;
    out += ']';
    if (!request.tools.empty()) KEEL_TRY(append_anthropic_tools(out, request));
    if (s.temperature) {
      out += ",\"temperature\":";
      out += json(*s.temperature).dump();
    }
    if (s.top_p) {
      out += ",\"top_p\":";
      out += json(*s.top_p).dump();
    }
    if (!s.stop.empty()) {
      out += ",\"stop_sequences\":";
      out += json(s.stop).dump();
    }
    if (options.stream) out += ",\"stream\":true";
    out += '}';
    return out;
  } catch (const std::exception& e) {
    return Status::Internal(std::string("cannot build the request JSON: ") + e.what());
  }
}

std::string finish_reason_of(std::string_view stop_reason) {
  if (stop_reason == "end_turn" || stop_reason == "stop_sequence") return "stop";
  if (stop_reason == "tool_use") return "tool_calls";
  if (stop_reason == "max_tokens") return "length";
  return std::string(stop_reason);
}

std::string anthropic_refusal_text(const json& holder) {
  if (!holder.is_object() || anth_string(holder, "stop_reason") != "refusal") return {};
  const auto details = holder.find("stop_details");
  return details != holder.end() && details->is_object() ? anth_string(*details, "explanation") : std::string();
}

int64_t anthropic_prompt_tokens(const json& usage) {
  return anth_int(usage, "input_tokens") + anth_int(usage, "cache_creation_input_tokens") +
         anth_int(usage, "cache_read_input_tokens");
}

int64_t anthropic_cached_prompt_tokens(const json& usage) { return anth_int(usage, "cache_read_input_tokens"); }

Result<ModelReply> parse_messages_reply(std::string_view body) {
  try {
    const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) return Status::Unavailable("invalid JSON from server: " + truncate_text(body, 200));
    return parse_anthropic_message(parsed);
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("unexpected reply from server: ") + e.what());
  }
}

std::string anthropic_error_text(const json& value) {
  if (!value.is_object()) return {};
  const auto error = value.find("error");
  if (error == value.end() || !error->is_object()) return {};
  std::string type = anth_string(*error, "type");
  std::string message = anth_string(*error, "message");
  if (message.empty()) message = truncate_text(error->dump(), 500);
  if (type.empty()) return message;
  type += ": ";
  type += message;
  return type;
}

std::string anthropic_server_message(std::string_view body) {
  try {
    const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
    std::string text = anthropic_error_text(parsed);
    if (!text.empty()) return truncate_text(text, 500);
  } catch (const std::exception&) {
    // fall through to the generic reading
  }
  return server_error_message(body);
}

}  // namespace keel::detail
