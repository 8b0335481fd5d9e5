#include "api/anthropic_request.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <utility>

#include "api/request_fields.hpp"
#include "core/text/text_util.hpp"

namespace keel::api {
namespace anthropic_parse {

using nlohmann::json;
using Error = std::optional<AnthropicError>;

AnthropicError bad(std::string field, std::string_view message) {
  AnthropicError e;
  e.status = 400;
  e.message = field.empty() ? std::string(message) : detail::concat({field, ": ", message});
  e.field = std::move(field);
  return e;
}

// Anthropic names nested fields with dots and indexes: "messages.2.content.0.type".
using fields::dotted;
std::string dotted(std::string_view base, size_t index) { return fields::dotted(base, std::to_string(index)); }

using fields::kind_of;

AnthropicError wrong_type(const std::string& field, std::string_view wanted, const json& got) {
  return bad(field, detail::concat({"must be ", wanted, "; got ", kind_of(got)}));
}

const json* find(const json& object, const char* name) {
  auto it = object.find(name);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

// A block's "type" (a string), or an error naming it.
Error block_type(const json& block, const std::string& where, std::string& type) {
  if (!block.is_object()) return wrong_type(where, "a content block object with a \"type\"", block);
  const json* t = find(block, "type");
  if (t == nullptr || !t->is_string()) return bad(dotted(where, "type"), "a content block needs a string \"type\"");
  type = t->get<std::string>();
  return std::nullopt;
}

// Block types keel cannot take, with what to do instead.
AnthropicError unsupported_block(const std::string& where, const std::string& type, std::string_view allowed) {
  std::string why;
  if (type == "thinking" || type == "redacted_thinking") {
    why = "thinking blocks are not supported: a keel agent does not return them, so leave them out of the conversation";
  } else if (type == "image" || type == "document") {
    why = detail::concat({type, " blocks are not supported: this endpoint takes text only; send the content as text"});
  } else {
    why = detail::concat({"'", type, "' blocks are not supported here"});
  }
  return bad(dotted(where, "type"), detail::concat({why, " (allowed: ", allowed, ")"}));
}

// A text block's text.
Error text_of(const json& block, const std::string& where, std::string& out) {
  const json* text = find(block, "text");
  if (text == nullptr || !text->is_string()) return bad(dotted(where, "text"), "a text block needs a string \"text\"");
  out = text->get<std::string>();
  return std::nullopt;
}

void join(std::string& into, const std::string& piece) {
  if (piece.empty()) return;
  if (!into.empty()) into.push_back('\n');
  into.append(piece);
}

// `system`: a string or text blocks; checked, then dropped.
Error check_system(const json& system) {
  if (system.is_string()) return std::nullopt;
  if (!system.is_array()) return wrong_type("system", "a string or an array of text blocks", system);
  for (size_t i = 0; i < system.size(); ++i) {
    const std::string where = dotted("system", i);
    std::string type, text;
    if (auto e = block_type(system[i], where, type)) return e;
    if (type != "text") return unsupported_block(where, type, "text");
    if (auto e = text_of(system[i], where, text)) return e;
  }
  return std::nullopt;
}

// A tool_result's content: a string or text blocks (joined with newlines).
Error tool_result_text(const json& content, const std::string& where, std::string& out) {
  if (content.is_string()) {
    out = content.get<std::string>();
    return std::nullopt;
  }
  if (!content.is_array()) return wrong_type(where, "a string or an array of text blocks", content);
  for (size_t i = 0; i < content.size(); ++i) {
    const std::string at = dotted(where, i);
    std::string type, text;
    if (auto e = block_type(content[i], at, type)) return e;
    if (type != "text") return unsupported_block(at, type, "text");
    if (auto e = text_of(content[i], at, text)) return e;
    join(out, text);
  }
  return std::nullopt;
}

// What the conversation so far expects: the calls of the last assistant message not answered.
struct Conversation {
  std::vector<Message> messages;
  std::map<std::string, std::string> open_calls;  // id -> tool name, of the last assistant message
};

// One user message: its tool results become tool messages (answering the last assistant message's
// calls), its text one user message after them.
Error read_user(const json& content, const std::string& where, Conversation& conv, std::string& text) {
  const std::string content_at = dotted(where, "content");
  std::map<std::string, std::string> expected = std::move(conv.open_calls);
  conv.open_calls.clear();
  if (content.is_string()) {
    text = content.get<std::string>();
  } else if (!content.is_array()) {
    return wrong_type(content_at, "a string or an array of content blocks", content);
  } else {
    for (size_t i = 0; i < content.size(); ++i) {
      const json& block = content[i];
      const std::string at = dotted(content_at, i);
      std::string type;
      if (auto e = block_type(block, at, type)) return e;
      if (type == "text") {
        std::string piece;
        if (auto e = text_of(block, at, piece)) return e;
        join(text, piece);
        continue;
      }
      if (type != "tool_result") return unsupported_block(at, type, "text, tool_result");
      const json* id = find(block, "tool_use_id");
      if (id == nullptr || !id->is_string() || id->get<std::string>().empty()) {
        return bad(dotted(at, "tool_use_id"), "a tool_result needs the string \"tool_use_id\" of the call it answers");
      }
      Message result;
      result.role = Role::kTool;
      result.tool_call_id = id->get<std::string>();
      auto call = expected.find(result.tool_call_id);
      if (call == expected.end()) {
        return bad(dotted(at, "tool_use_id"),
                   detail::concat({"'", result.tool_call_id,
                                   "' answers no tool_use block of the previous assistant message (or answers one twice)"}));
      }
      result.name = call->second;
      expected.erase(call);
      if (const json* c = find(block, "content")) {
        if (auto e = tool_result_text(*c, dotted(at, "content"), result.content)) return e;
      }
      bool is_error = false;
      if (const json* flag = find(block, "is_error")) {
        if (!flag->is_boolean()) return wrong_type(dotted(at, "is_error"), "true or false", *flag);
        is_error = flag->get<bool>();
      }
      result.metadata["status"] = is_error ? "error" : "ok";
      conv.messages.push_back(std::move(result));
    }
  }
  if (!expected.empty()) {
    return bad(content_at, detail::concat({"the tool_use '", expected.begin()->first, "' (", expected.begin()->second,
                                           ") of the previous assistant message has no tool_result here; answer every "
                                           "tool_use with a tool_result block in the next user message"}));
  }
  return std::nullopt;
}

// One assistant message: its text blocks and tool_use blocks.
Error read_assistant(const json& content, const std::string& where, Conversation& conv) {
  const std::string content_at = dotted(where, "content");
  Message msg;
  msg.role = Role::kAssistant;
  if (content.is_string()) {
    msg.content = content.get<std::string>();
  } else if (!content.is_array()) {
    return wrong_type(content_at, "a string or an array of content blocks", content);
  } else {
    for (size_t i = 0; i < content.size(); ++i) {
      const json& block = content[i];
      const std::string at = dotted(content_at, i);
      std::string type;
      if (auto e = block_type(block, at, type)) return e;
      if (type == "text") {
        std::string piece;
        if (auto e = text_of(block, at, piece)) return e;
        join(msg.content, piece);
        continue;
      }
      if (type != "tool_use") return unsupported_block(at, type, "text, tool_use");
      const json* id = find(block, "id");
      if (id == nullptr || !id->is_string() || id->get<std::string>().empty()) {
        return bad(dotted(at, "id"), "a tool_use block needs a string \"id\"");
      }
      const json* name = find(block, "name");
      if (name == nullptr || !name->is_string() || name->get<std::string>().empty()) {
        return bad(dotted(at, "name"), "a tool_use block needs a string \"name\"");
      }
      const json* input = find(block, "input");
      if (input != nullptr && !input->is_object()) return wrong_type(dotted(at, "input"), "an object", *input);
      ToolCall call;
      call.id = id->get<std::string>();
      call.name = name->get<std::string>();
      call.arguments = input == nullptr ? "{}" : input->dump(-1, ' ', false, json::error_handler_t::replace);
      if (!conv.open_calls.emplace(call.id, call.name).second) {
        return bad(dotted(at, "id"), detail::concat({"the tool_use id '", call.id, "' is used twice in this message"}));
      }
      msg.tool_calls.push_back(std::move(call));
    }
  }
  conv.messages.push_back(std::move(msg));
  return std::nullopt;
}

// The conversation: everything before the last user message's text is `earlier`, that text the task.
Error read_messages(const json& messages, MessagesRequest& out) {
  if (!messages.is_array()) return wrong_type("messages", "an array of messages", messages);
  if (messages.empty()) return bad("messages", "is empty; send at least one user message (the task)");
  Conversation conv;
  std::string last_text;
  for (size_t i = 0; i < messages.size(); ++i) {
    const json& m = messages[i];
    const std::string where = dotted("messages", i);
    if (!m.is_object()) return wrong_type(where, "an object with \"role\" and \"content\"", m);
    const json* role = find(m, "role");
    if (role == nullptr || !role->is_string()) return bad(dotted(where, "role"), "needs a \"role\": user or assistant");
    const json* content = find(m, "content");
    if (content == nullptr) return bad(dotted(where, "content"), "is missing; send a string or an array of content blocks");
    const std::string r = role->get<std::string>();
    if (r == "user") {
      std::string text;
      if (auto e = read_user(*content, where, conv, text)) return e;
      if (i + 1 == messages.size()) {
        last_text = std::move(text);
      } else if (!text.empty()) {
        conv.messages.push_back(Message::user(std::move(text)));
      }
    } else if (r == "assistant") {
      if (i + 1 == messages.size()) {
        return bad(dotted(where, "role"),
                   "the last message is an assistant message (a prefill), which a keel run cannot continue; end the "
                   "conversation with a user message");
      }
      if (!conv.open_calls.empty()) {
        return bad(where, detail::concat({"the tool_use '", conv.open_calls.begin()->first,
                                          "' of the previous assistant message has no tool_result; the next message "
                                          "must be a user message answering it"}));
      }
      if (auto e = read_assistant(*content, where, conv)) return e;
    } else {
      return bad(dotted(where, "role"), detail::concat({"is '", r, "'; use user or assistant (send system text as the top-level \"system\")"}));
    }
  }
  const bool has_results = !conv.messages.empty() && conv.messages.back().role == Role::kTool;
  if (last_text.empty() && !has_results) {
    return bad(dotted("messages", messages.size() - 1),
               "the last user message has no text and no tool_result; send the task or the results of the tool calls");
  }
  out.task = std::move(last_text);
  out.earlier = std::move(conv.messages);
  return std::nullopt;
}

// The client's tools: {"name","description","input_schema"} ("type":"custom" or none).
Error read_tools(const json& tools, MessagesRequest& out) {
  if (!tools.is_array()) return wrong_type("tools", "an array of tools", tools);
  for (size_t i = 0; i < tools.size(); ++i) {
    const json& t = tools[i];
    const std::string where = dotted("tools", i);
    if (!t.is_object()) return wrong_type(where, "an object {\"name\",\"description\",\"input_schema\"}", t);
    if (const json* type = find(t, "type"); type != nullptr && *type != "custom") {
      return bad(dotted(where, "type"),
                 detail::concat({"is ", type->dump(), "; Anthropic's own server tools are not available through keel "
                                 "(the profile's tools run inside the agent): send client tools only, with an "
                                 "input_schema"}));
    }
    const json* name = find(t, "name");
    if (name == nullptr || !name->is_string()) return bad(dotted(where, "name"), "a tool needs a string \"name\"");
    const json* schema = find(t, "input_schema");
    if (schema == nullptr) return bad(dotted(where, "input_schema"), "a tool needs an \"input_schema\" (a JSON Schema object)");
    if (!schema->is_object()) return wrong_type(dotted(where, "input_schema"), "a JSON Schema object", *schema);
    ToolSpec spec;
    spec.name = name->get<std::string>();
    if (const json* description = find(t, "description")) {
      if (!description->is_string()) return wrong_type(dotted(where, "description"), "a string", *description);
      spec.description = description->get<std::string>();
    }
    spec.parameters_schema = schema->dump(-1, ' ', false, json::error_handler_t::replace);
    spec.client_side = true;
    out.tools.push_back(std::move(spec));
  }
  return std::nullopt;
}

// {"type":"auto"|"any"|"tool"|"none","name","disable_parallel_tool_use"}.
Error read_tool_choice(const json& choice, MessagesRequest& out) {
  if (!choice.is_object()) return wrong_type("tool_choice", "an object {\"type\":\"auto\"|\"any\"|\"tool\"|\"none\"}", choice);
  const json* type = find(choice, "type");
  if (type == nullptr || !type->is_string()) return bad("tool_choice.type", "needs \"auto\", \"any\", \"tool\" or \"none\"");
  if (const json* parallel = find(choice, "disable_parallel_tool_use"); parallel != nullptr && !parallel->is_boolean()) {
    return wrong_type("tool_choice.disable_parallel_tool_use", "true or false", *parallel);
  }
  const std::string t = type->get<std::string>();
  if (t == "auto") {
    out.tool_choice.clear();
  } else if (t == "none") {
    out.tool_choice = "none";
  } else if (t == "any" || t == "tool") {
    if (out.tools.empty()) {
      return bad("tool_choice.type", detail::concat({"is \"", t, "\" but the request has no tools; send them in \"tools\""}));
    }
    if (t == "any") {
      out.tool_choice = "required";
    } else {
      const json* name = find(choice, "name");
      if (name == nullptr || !name->is_string()) return bad("tool_choice.name", "\"type\":\"tool\" needs the \"name\" of one of the tools");
      out.tool_choice = name->get<std::string>();
      bool known = false;
      for (const ToolSpec& spec : out.tools) known = known || spec.name == out.tool_choice;
      if (!known) return bad("tool_choice.name", detail::concat({"'", out.tool_choice, "' is not one of the request's tools"}));
    }
  } else {
    return bad("tool_choice.type", detail::concat({"is '", t, "'; use \"auto\", \"any\", \"tool\" or \"none\""}));
  }
  return std::nullopt;
}

Error read_sampling(const json& body, MessagesRequest& out) {
  const json* max_tokens = find(body, "max_tokens");
  if (max_tokens == nullptr) return bad("max_tokens", "is required; send the most tokens one model reply may have");
  if (!max_tokens->is_number_integer()) return wrong_type("max_tokens", "an integer", *max_tokens);
  const int64_t limit = max_tokens->get<int64_t>();
  if (limit < 1 || limit > std::numeric_limits<int>::max()) {
    return bad("max_tokens", detail::concat({"must be a positive integer; got ", std::to_string(limit)}));
  }
  out.sampling.max_tokens = static_cast<int>(limit);
  for (const char* name : {"temperature", "top_p"}) {
    const json* v = find(body, name);
    if (v == nullptr) continue;
    if (!v->is_number()) return wrong_type(name, "a number", *v);
    (std::string_view(name) == "temperature" ? out.sampling.temperature : out.sampling.top_p) = v->get<double>();
  }
  if (const json* top_k = find(body, "top_k")) {
    if (!top_k->is_number_integer() || top_k->get<int64_t>() < 0 || top_k->get<int64_t>() > std::numeric_limits<int>::max()) {
      return wrong_type("top_k", "a non-negative integer", *top_k);
    }
    out.sampling.top_k = static_cast<int>(top_k->get<int64_t>());
  }
  if (const json* stops = find(body, "stop_sequences")) {
    if (!stops->is_array()) return wrong_type("stop_sequences", "an array of strings", *stops);
    for (size_t i = 0; i < stops->size(); ++i) {
      if (!(*stops)[i].is_string()) return wrong_type(dotted("stop_sequences", i), "a string", (*stops)[i]);
      out.sampling.stop.push_back((*stops)[i].get<std::string>());
    }
  }
  return std::nullopt;
}

Error read_body(const json& body, MessagesRequest& out) {
  if (!body.is_object()) return wrong_type("body", "a JSON object", body);
  const json* model = find(body, "model");
  if (model == nullptr) return bad("model", "is required; send the name of a keel profile (GET /v1/models lists them)");
  if (!model->is_string()) return wrong_type("model", "a string (a keel profile's name)", *model);
  out.model = model->get<std::string>();
  if (auto e = read_sampling(body, out)) return e;
  if (const json* stream = find(body, "stream")) {
    if (!stream->is_boolean()) return wrong_type("stream", "true or false", *stream);
    out.stream = stream->get<bool>();
  }
  if (const json* system = find(body, "system")) {
    if (auto e = check_system(*system)) return e;
  }
  if (const json* metadata = find(body, "metadata")) {
    if (!metadata->is_object()) return wrong_type("metadata", "an object", *metadata);
    if (const json* user = find(*metadata, "user_id"); user != nullptr && !user->is_string()) {
      return wrong_type("metadata.user_id", "a string", *user);
    }
  }
  for (const char* name : {"mcp_servers", "container"}) {
    const json* v = find(body, name);
    if (v != nullptr && !(v->is_array() && v->empty())) {
      return bad(name, "is not supported: a keel agent's tools come from its profile; leave it out");
    }
  }
  if (const json* tools = find(body, "tools")) {
    if (auto e = read_tools(*tools, out)) return e;
  }
  if (const json* choice = find(body, "tool_choice")) {
    if (auto e = read_tool_choice(*choice, out)) return e;
  }
  const json* messages = find(body, "messages");
  if (messages == nullptr) return bad("messages", "is required; send the conversation, ending with a user message");
  return read_messages(*messages, out);
}

}  // namespace anthropic_parse

std::variant<MessagesRequest, AnthropicError> parse_messages_request(std::string_view body) {
  nlohmann::json parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return anthropic_parse::bad("", "the request body is not valid JSON; send a Messages request such as "
                   "{\"model\":\"default\",\"max_tokens\":1024,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
  }
  MessagesRequest out;
  try {  // the checks above use only non-throwing accessors; this guards what they missed
    if (auto e = anthropic_parse::read_body(parsed, out)) return *e;
  } catch (const nlohmann::json::exception& e) {
    return anthropic_parse::bad("", detail::concat({"the request could not be read: ", e.what()}));
  }
  return out;
}

}  // namespace keel::api
