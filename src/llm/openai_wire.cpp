// OpenAI chat-completions JSON mapping; see openai_wire.hpp.
#include "llm/openai_wire.hpp"

#include <exception>

#include "core/parsing/json/json_text.hpp"
#include "core/text/utf8_text.hpp"
#include "llm/completion_view.hpp"
#include "llm/json_numbers.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;

// The body is written straight into a string (see json_text.hpp): no JSON document of the whole
// conversation is built per round.
void append_message(std::string& out, const Message& m) {
  out += "{\"role\":";
  append_json_string(out, role_name(m.role));
  switch (m.role) {
    case Role::kSystem:
    case Role::kUser:
      out += ",\"content\":";
      append_json_string(out, m.content);
      break;
    case Role::kAssistant:
      out += ",\"content\":";
      if (m.tool_calls.empty()) {
        append_json_string(out, m.content);
        break;
      }
      // OpenAI expects null rather than "" next to tool calls.
      if (m.content.empty()) out += "null";
      else append_json_string(out, m.content);
      out += ",\"tool_calls\":[";
      for (size_t i = 0; i < m.tool_calls.size(); ++i) {
        const ToolCall& call = m.tool_calls[i];
        if (i > 0) out += ',';
        out += "{\"id\":";
        append_json_string(out, call.id);
        out += ",\"type\":\"function\",\"function\":{\"name\":";
        append_json_string(out, call.name);
        out += ",\"arguments\":";
        append_json_string(out, call.arguments.empty() ? std::string_view("{}") : std::string_view(call.arguments));
        out += "}}";
      }
      out += ']';
      break;
    case Role::kTool:
      out += ",\"tool_call_id\":";
      append_json_string(out, m.tool_call_id);
      out += ",\"content\":";
      append_json_string(out, m.content);
      break;
  }
  out += '}';
}

// ModelRequest::tool_choice in OpenAI's shape: a mode string, or the named function.
void append_tool_choice(std::string& out, std::string_view choice) {
  if (choice.empty()) return;
  out += ",\"tool_choice\":";
  if (choice == "auto" || choice == "none" || choice == "required") {
    append_json_string(out, choice);
    return;
  }
  out += "{\"type\":\"function\",\"function\":{\"name\":";
  append_json_string(out, choice);
  out += "}}";
}

Status append_tools(std::string& out, const ModelRequest& request) {
  out += ",\"tools\":[";
  bool first = true;
  for (const ToolSpec& spec : request.tools) {
    std::string_view schema = spec.parameters_schema;
    size_t open = schema.find_first_not_of(" \t\r\n");
    if (open == std::string_view::npos || schema[open] != '{' || !is_json_value(schema)) {
      return Status::InvalidArgument("tool '" + spec.name + "' has a parameters_schema that is not a JSON object: " +
                                     truncate_text(spec.parameters_schema, 200));
    }
    if (!first) out += ',';
    first = false;
    out += "{\"type\":\"function\",\"function\":{\"name\":";
    append_json_string(out, spec.name);
    out += ",\"description\":";
    append_json_string(out, spec.description);
    out += ",\"parameters\":";
    out += schema;
    out += "}}";
  }
  out += ']';
  return Status::Ok();
}

int64_t int_field(const json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? 0 : number_as_count(*it);
}

std::string string_field(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Result<ModelReply> parse_completion_json(const json& body) {
  if (auto error = embedded_error(body)) {
    return Status::Unavailable("server reported an error: " + *error);
  }
  if (!body.is_object()) return Status::Unavailable("reply is not a JSON object");
  const auto choices = body.find("choices");
  if (choices == body.end() || !choices->is_array() || choices->empty() || !(*choices)[0].is_object()) {
    return Status::Unavailable("reply has no choices: " + truncate_text(body.dump(), 300));
  }
  const json& choice = (*choices)[0];
  ModelReply reply;
  reply.model = string_field(body, "model");
  reply.finish_reason = string_field(choice, "finish_reason");
  if (const auto usage = body.find("usage"); usage != body.end() && usage->is_object()) {
    reply.usage.prompt_tokens = int_field(*usage, "prompt_tokens");
    reply.usage.completion_tokens = int_field(*usage, "completion_tokens");
    reply.usage.cached_prompt_tokens = openai_cached_prompt_tokens(*usage);
  }
  const auto message = choice.find("message");
  if (message == choice.end() || !message->is_object()) {
    return Status::Unavailable("reply's first choice has no message object");
  }
  if (const auto content = message->find("content"); content != message->end()) {
    reply.text = content_text(*content);
    reply.reasoning = content_thinking(*content);
  }
  // A refusal (content null, the reason in "refusal") is what the user must read.
  if (reply.text.empty()) reply.text = string_field(*message, "refusal");
  if (reply.reasoning.empty()) reply.reasoning = string_field(*message, "reasoning_content");
  if (reply.reasoning.empty()) reply.reasoning = string_field(*message, "reasoning");
  if (const auto calls = message->find("tool_calls"); calls != message->end() && calls->is_array()) {
    for (const json& call : *calls) {
      if (!call.is_object()) continue;
      ToolCall out;
      out.id = string_field(call, "id");
      if (const auto fn = call.find("function"); fn != call.end() && fn->is_object()) {
        out.name = string_field(*fn, "name");
        const auto args = fn->find("arguments");
        out.arguments = arguments_text(args == fn->end() ? json(nullptr) : *args);
      }
      reply.tool_calls.push_back(std::move(out));
    }
  }
  return reply;
}

}  // namespace

namespace {

// Whether `a` and `b` render the same (the fields append_message() writes).
bool same_on_the_wire(const Message& a, const Message& b) {
  if (a.role != b.role || a.content != b.content || a.tool_call_id != b.tool_call_id ||
      a.tool_calls.size() != b.tool_calls.size()) {
    return false;
  }
  for (size_t i = 0; i < a.tool_calls.size(); ++i) {
    const ToolCall& x = a.tool_calls[i];
    const ToolCall& y = b.tool_calls[i];
    if (x.id != y.id || x.name != y.name || x.arguments != y.arguments) return false;
  }
  return true;
}

}  // namespace

void RenderCache::keep_messages(size_t n) {
  sent_.resize(n);
  ends_.resize(n);
  messages_.resize(n == 0 ? 0 : ends_.back());
}

void RenderCache::append_messages(std::string& out, const ModelRequest& request) {
  size_t kept = 0;  // messages of sent_ that the request repeats, from the start
  bool matching = true;
  request.for_each_message([&](const Message& m) {
    if (matching && kept < sent_.size() && same_on_the_wire(m, sent_[kept])) {
      ++kept;
      return;
    }
    if (matching) {  // the rest is rendered anew
      matching = false;
      keep_messages(kept);
    }
    if (!sent_.empty()) messages_ += ',';
    append_message(messages_, m);
    sent_.push_back(m);
    ends_.push_back(messages_.size());
  });
  if (matching) keep_messages(kept);  // the request may be a prefix of what was sent
  out.reserve(out.size() + messages_.size() + tools_text_.size() + 1024);
  out += messages_;
}

Status RenderCache::append_tools(std::string& out, const ModelRequest& request) {
  if (!std::equal(request.tools.begin(), request.tools.end(), tools_.begin(), tools_.end(), same_definition)) {
    tools_.clear();
    tools_text_.clear();
    Status rendered = detail::append_tools(tools_text_, request);
    if (!rendered.ok()) {
      tools_text_.clear();
      return rendered;
    }
    tools_.assign(request.tools.begin(), request.tools.end());
  }
  out += tools_text_;
  return Status::Ok();
}

Result<std::string> build_chat_request(const ModelRequest& request, const WireOptions& options,
                                       RenderCache* cache) {
  try {
    std::string out;
    out.reserve(4096);
    out += '{';
    if (!options.model.empty()) {
      out += "\"model\":";
      append_json_string(out, options.model);
      out += ',';
    }
    out += "\"messages\":[";
    if (cache != nullptr) {
      cache->append_messages(out, request);
    } else {
      bool first = true;
      request.for_each_message([&](const Message& m) {
        if (!first) out += ',';
        first = false;
        append_message(out, m);
      });
    }
    out += ']';
    if (request.tools_enabled && !request.tools.empty()) {
      KEEL_TRY(cache != nullptr ? cache->append_tools(out, request) : append_tools(out, request));
      append_tool_choice(out, request.tool_choice);
    }
    const SamplingParams& s = request.sampling;
    if (s.temperature) out += ",\"temperature\":" + json(*s.temperature).dump();
    if (s.max_tokens) out += ",\"max_tokens\":" + std::to_string(*s.max_tokens);
    if (s.top_p) out += ",\"top_p\":" + json(*s.top_p).dump();
    if (s.seed) out += ",\"seed\":" + std::to_string(*s.seed);
    if (!s.stop.empty()) out += ",\"stop\":" + json(s.stop).dump();
    if (options.stream) {
      out += ",\"stream\":true";
      if (options.stream_usage) out += ",\"stream_options\":{\"include_usage\":true}";
    }
    out += '}';
    return out;
  } catch (const std::exception& e) {
    return Status::Internal(std::string("cannot build the request JSON: ") + e.what());
  }
}

int64_t openai_cached_prompt_tokens(const json& usage) {
  const auto details = usage.find("prompt_tokens_details");
  if (details == usage.end() || !details->is_object()) return 0;
  const auto cached = details->find("cached_tokens");
  return cached != details->end() && cached->is_number_integer() ? number_as_count(*cached) : 0;
}

Result<ModelReply> parse_chat_completion(std::string_view body) {
  if (std::optional<ModelReply> plain = read_plain_completion(body)) return std::move(*plain);
  return parse_chat_completion_document(body);
}

Result<ModelReply> parse_chat_completion_document(std::string_view body) {
  try {
    const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) {
      return Status::Unavailable("invalid JSON from server: " + truncate_text(body, 200));
    }
    return parse_completion_json(parsed);
  } catch (const std::exception& e) {
    return Status::Unavailable(std::string("unexpected reply from server: ") + e.what());
  }
}

std::string arguments_text(const json& arguments) {
  if (arguments.is_string()) {
    std::string text = arguments.get<std::string>();
    return text.empty() ? "{}" : text;
  }
  if (arguments.is_null()) return "{}";
  return arguments.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string content_text(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (content.is_array()) {
    for (const json& part : content) {
      if (part.is_object() && string_field(part, "type") != "thinking") out += string_field(part, "text");
    }
  }
  return out;
}

std::string content_thinking(const json& content) {
  std::string out;
  if (!content.is_array()) return out;
  for (const json& part : content) {
    if (!part.is_object() || string_field(part, "type") != "thinking") continue;
    const auto thinking = part.find("thinking");
    if (thinking == part.end()) continue;
    if (thinking->is_string()) {
      out += thinking->get<std::string>();
    } else if (thinking->is_array()) {
      for (const json& piece : *thinking) {
        if (piece.is_object()) out += string_field(piece, "text");
      }
    }
  }
  return out;
}

std::optional<std::string> embedded_error(const json& value) {
  if (!value.is_object()) return std::nullopt;
  const auto error = value.find("error");
  if (error == value.end() || error->is_null()) return std::nullopt;
  if (error->is_string()) return error->get<std::string>();
  if (error->is_object()) {
    std::string message = string_field(*error, "message");
    return message.empty() ? truncate_text(error->dump(), 500) : message;
  }
  return truncate_text(error->dump(), 500);
}

long embedded_error_status(const json& value) {
  if (!value.is_object()) return 0;
  const auto error = value.find("error");
  if (error == value.end() || !error->is_object()) return 0;
  for (const char* key : {"code", "status", "status_code"}) {
    const int64_t code = int_field(*error, key);
    if (code >= 400 && code <= 599) return static_cast<long>(code);
  }
  const int64_t outer = int_field(value, "status_code");
  if (outer >= 400 && outer <= 599) return static_cast<long>(outer);
  return 0;
}

std::string server_error_message(std::string_view body) {
  try {
    const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_discarded()) {
      if (auto message = embedded_error(parsed)) return truncate_text(*message, 500);
      if (parsed.is_object()) {
        std::string message = string_field(parsed, "message");  // some proxies
        if (!message.empty()) return truncate_text(message, 500);
      }
    }
  } catch (const std::exception&) {
    // fall through to the raw body
  }
  std::string raw = truncate_text(body, 500);
  return raw.empty() ? "(empty body)" : raw;
}

Status http_error_status(long status, std::string_view server_message, std::string_view url) {
  std::string message = "HTTP " + std::to_string(status) + ": " + std::string(server_message);
  switch (status) {
    case 400: return Status::InvalidArgument(std::move(message));
    case 401: return Status::Unauthenticated(message + " (check the API key for " + std::string(url) + ")");
    case 403: return Status::PermissionDenied(std::move(message));
    case 404:
      return Status::NotFound(message + " (POST " + std::string(url) + "; check base_url and the model name)");
    default: break;
  }
  if (status >= 400 && status <= 499 && status != 408 && status != 409 && status != 429) {
    return Status::InvalidArgument(std::move(message));
  }
  return Status::Unavailable(std::move(message));
}

std::string truncate_text(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  std::string out(text.substr(0, utf8_char_start(text, max_bytes)));
  out += "...";
  return out;
}

}  // namespace keel::detail
