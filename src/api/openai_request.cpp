#include "api/openai_request.hpp"

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "api/request_fields.hpp"
#include "core/text/text_util.hpp"

namespace keel::api {
namespace {

using nlohmann::json;

using fields::bad;
using fields::dotted;
using fields::kind_of;
using fields::wrong_type;
inline std::string at(std::string_view base, size_t index) { return fields::indexed(base, index); }

// The text of a `content` field: a string, or an array of {"type":"text","text"} parts (joined
// with newlines). Assistant messages may also carry {"type":"refusal","refusal"} parts; null is
// empty text where `null_ok`.
std::optional<OpenAiError> read_content(const json& content, const std::string& where, bool assistant, bool null_ok,
                                        std::string& out) {
  if (content.is_string()) {
    out = content.get<std::string>();
    return std::nullopt;
  }
  if (content.is_null() && null_ok) return std::nullopt;
  if (!content.is_array()) return wrong_type(where, "a string or an array of text parts", content);
  for (size_t i = 0; i < content.size(); ++i) {
    const json& part = content[i];
    const std::string part_at = at(where, i);
    if (!part.is_object()) return wrong_type(part_at, "an object {\"type\":\"text\",\"text\":...}", part);
    auto type = part.find("type");
    if (type == part.end() || !type->is_string()) {
      return bad(dotted(part_at, "type"), "missing_required_parameter", detail::concat({"'", part_at, "' needs a \"type\" (\"text\")"}));
    }
    const std::string t = type->get<std::string>();
    const char* field = t == "text" ? "text" : (assistant && t == "refusal") ? "refusal" : nullptr;
    if (field == nullptr) {
      std::string m = "'";
      m.append(part_at).append("' is a '").append(t).append(
          "' part; this endpoint takes text only: send the content as a string or as {\"type\":\"text\"} parts");
      return bad(dotted(part_at, "type"), "unsupported_value", std::move(m));
    }
    auto text = part.find(field);
    if (text == part.end() || !text->is_string()) {
      return bad(dotted(part_at, field), "missing_required_parameter",
                 detail::concat({"'", part_at, "' needs a string \"", field, "\""}));
    }
    if (!out.empty()) out.push_back('\n');
    out.append(text->get<std::string>());
  }
  return std::nullopt;
}

// An assistant message's tool_calls, each {"id","type":"function","function":{"name","arguments"}}.
std::optional<OpenAiError> read_tool_calls(const json& calls, const std::string& where, std::vector<ToolCall>& out) {
  if (calls.is_null()) return std::nullopt;
  if (!calls.is_array()) return wrong_type(where, "an array", calls);
  for (size_t i = 0; i < calls.size(); ++i) {
    const json& c = calls[i];
    const std::string call_at = at(where, i);
    if (!c.is_object()) return wrong_type(call_at, "an object", c);
    auto type = c.find("type");
    if (type != c.end() && *type != "function") {
      return bad(dotted(call_at, "type"), "unsupported_value", detail::concat({"'", call_at, ".type' must be \"function\""}));
    }
    auto id = c.find("id");
    if (id == c.end() || !id->is_string() || id->get<std::string>().empty()) {
      return bad(dotted(call_at, "id"), "missing_required_parameter", detail::concat({"'", call_at, "' needs a string \"id\""}));
    }
    auto fn = c.find("function");
    if (fn == c.end() || !fn->is_object()) {
      return bad(dotted(call_at, "function"), "missing_required_parameter",
                 detail::concat({"'", call_at, "' needs a \"function\" object with \"name\" and \"arguments\""}));
    }
    auto name = fn->find("name");
    if (name == fn->end() || !name->is_string() || name->get<std::string>().empty()) {
      return bad(dotted(call_at, "function.name"), "missing_required_parameter",
                 detail::concat({"'", call_at, ".function' needs a string \"name\""}));
    }
    ToolCall call;
    call.id = id->get<std::string>();
    call.name = name->get<std::string>();
    auto args = fn->find("arguments");
    if (args == fn->end() || args->is_null()) {
      call.arguments = "{}";
    } else if (args->is_string()) {
      call.arguments = args->get<std::string>();
    } else if (args->is_object()) {
      call.arguments = args->dump();  // some clients send the object itself
    } else {
      return wrong_type(dotted(call_at, "function.arguments"), "a JSON string", *args);
    }
    out.push_back(std::move(call));
  }
  return std::nullopt;
}

// The conversation: messages before the last become `earlier`, the last (a user message) the task.
std::optional<OpenAiError> read_messages(const json& messages, ChatRequest& out) {
  if (!messages.is_array()) return wrong_type("messages", "an array of messages", messages);
  if (messages.empty()) {
    return bad("messages", "invalid_value", "'messages' is empty; send at least one user message (the task)");
  }
  std::set<std::string> known_calls;    // ids of tool calls made by earlier assistant messages
  std::set<std::string> pending_calls;  // the latest assistant message's calls not answered yet
  std::vector<Message> conversation;
  for (size_t i = 0; i < messages.size(); ++i) {
    const json& m = messages[i];
    const std::string where = at("messages", i);
    if (!m.is_object()) return wrong_type(where, "an object with \"role\" and \"content\"", m);
    auto role_it = m.find("role");
    if (role_it == m.end() || !role_it->is_string()) {
      return bad(dotted(where, "role"), "missing_required_parameter",
                 detail::concat({"'", where, "' needs a \"role\": user, assistant, tool or system"}));
    }
    const std::string role = role_it->get<std::string>();
    static const json kNoContent;
    const json& content = m.contains("content") ? m.at("content") : kNoContent;
    const std::string content_at = dotted(where, "content");
    if (role != "tool" && !pending_calls.empty()) {
      return bad(where, "invalid_value",
                 detail::concat({"the tool call '", *pending_calls.begin(),
                                 "' of an earlier assistant message has no tool message answering it before '", where,
                                 "'; send one {\"role\":\"tool\",\"tool_call_id\":...} per call"}));
    }
    if (role == "system" || role == "developer") {
      std::string ignored;  // checked for shape, then dropped: keel writes its own system prompt
      if (auto e = read_content(content, content_at, false, false, ignored)) return e;
      continue;
    }
    Message msg;
    if (role == "user") {
      msg.role = Role::kUser;
      if (auto e = read_content(content, content_at, false, false, msg.content)) return e;
    } else if (role == "assistant") {
      msg.role = Role::kAssistant;
      if (auto e = read_content(content, content_at, true, true, msg.content)) return e;
      if (m.contains("tool_calls")) {
        if (auto e = read_tool_calls(m.at("tool_calls"), dotted(where, "tool_calls"), msg.tool_calls)) return e;
      }
      if (m.contains("function_call") && !m.at("function_call").is_null()) {
        return bad(dotted(where, "function_call"), "unsupported_parameter",
                   detail::concat({"'", where, ".function_call' is the deprecated form; send \"tool_calls\" instead"}));
      }
      for (const ToolCall& c : msg.tool_calls) {
        known_calls.insert(c.id);
        pending_calls.insert(c.id);
      }
    } else if (role == "tool") {
      msg.role = Role::kTool;
      auto id = m.find("tool_call_id");
      if (id == m.end() || !id->is_string()) {
        return bad(dotted(where, "tool_call_id"), "missing_required_parameter",
                   detail::concat({"'", where, "' needs a string \"tool_call_id\" naming the call it answers"}));
      }
      msg.tool_call_id = id->get<std::string>();
      if (known_calls.count(msg.tool_call_id) == 0) {
        return bad(dotted(where, "tool_call_id"), "invalid_value",
                   detail::concat({"'", where, ".tool_call_id' is '", msg.tool_call_id,
                                   "', which no earlier assistant message's tool_calls has"}));
      }
      pending_calls.erase(msg.tool_call_id);
      for (auto it = conversation.rbegin(); it != conversation.rend() && msg.name.empty(); ++it) {
        for (const ToolCall& c : it->tool_calls) {
          if (c.id == msg.tool_call_id) msg.name = c.name;
        }
      }
      if (auto e = read_content(content, content_at, false, false, msg.content)) return e;
    } else if (role == "function") {
      return bad(dotted(where, "role"), "unsupported_value",
                 detail::concat({"'", where, "' has the deprecated role \"function\"; send \"tool\" messages instead"}));
    } else {
      return bad(dotted(where, "role"), "invalid_value",
                 detail::concat({"'", where, ".role' is '", role, "'; use user, assistant, tool, system or developer"}));
    }
    conversation.push_back(std::move(msg));
  }
  if (!conversation.empty() && conversation.back().role == Role::kTool) {
    if (!pending_calls.empty()) {
      return bad("messages", "invalid_value",
                 detail::concat({"the tool call '", *pending_calls.begin(),
                                 "' of the last assistant message has no tool message answering it; send one "
                                 "{\"role\":\"tool\",\"tool_call_id\":...} per call"}));
    }
    out.earlier = std::move(conversation);  // the client's results: the run goes on from them
    return std::nullopt;
  }
  if (conversation.empty() || conversation.back().role != Role::kUser) {
    return bad("messages", "invalid_value",
               detail::concat({"the last message must be a user message (the task for the agent); it is ",
                               conversation.empty() ? "a system message" : role_name(conversation.back().role),
                               "; end the conversation with the user's request, or with tool messages answering "
                               "the last assistant message's tool_calls"}));
  }
  if (conversation.back().content.empty()) {
    return bad(at("messages", messages.size() - 1), "invalid_value", "the last user message has no text; send the task");
  }
  out.task = std::move(conversation.back().content);
  conversation.pop_back();
  out.earlier = std::move(conversation);
  return std::nullopt;
}

std::optional<OpenAiError> read_number(const json& body, const char* name, std::optional<double>& out) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) return wrong_type(name, "a number", *it);
  out = it->get<double>();
  return std::nullopt;
}

std::optional<OpenAiError> read_integer(const json& body, const char* name, std::optional<int64_t>& out) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer()) return wrong_type(name, "an integer", *it);
  out = it->get<int64_t>();
  return std::nullopt;
}

std::optional<OpenAiError> read_bool(const json& body, const char* name, bool& out) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean()) return wrong_type(name, "true or false", *it);
  out = it->get<bool>();
  return std::nullopt;
}

// `tools`: the client's function tools, each {"type":"function","function":{"name",
// "description","parameters","strict"}}.
std::optional<OpenAiError> read_tools(const json& tools, std::vector<ToolSpec>& out) {
  if (tools.is_null()) return std::nullopt;
  if (!tools.is_array()) return wrong_type("tools", "an array of function tools", tools);
  for (size_t i = 0; i < tools.size(); ++i) {
    const json& t = tools[i];
    const std::string where = at("tools", i);
    if (!t.is_object()) return wrong_type(where, "an object {\"type\":\"function\",\"function\":{...}}", t);
    auto type = t.find("type");
    if (type == t.end() || *type != "function") {
      return bad(dotted(where, "type"), "unsupported_value",
                 detail::concat({"'", where, ".type' must be \"function\"; other tool types are not supported"}));
    }
    auto fn = t.find("function");
    if (fn == t.end() || !fn->is_object()) {
      return bad(dotted(where, "function"), "missing_required_parameter",
                 detail::concat({"'", where, "' needs a \"function\" object with a \"name\""}));
    }
    auto name = fn->find("name");
    if (name == fn->end() || !name->is_string() || name->get<std::string>().empty()) {
      return bad(dotted(where, "function.name"), "missing_required_parameter",
                 detail::concat({"'", where, ".function' needs a string \"name\""}));
    }
    ToolSpec spec;
    spec.name = name->get<std::string>();
    auto description = fn->find("description");
    if (description != fn->end() && description->is_string()) spec.description = description->get<std::string>();
    auto parameters = fn->find("parameters");
    if (parameters != fn->end() && !parameters->is_null()) {
      if (!parameters->is_object()) return wrong_type(dotted(where, "function.parameters"), "a JSON Schema object", *parameters);
      spec.parameters_schema = parameters->dump();
    }
    spec.client_side = true;
    out.push_back(std::move(spec));
  }
  return std::nullopt;
}

// `tool_choice`: "none", "auto", "required" or {"type":"function","function":{"name"}} naming
// one of the client's tools.
std::optional<OpenAiError> read_tool_choice(const json& body, ChatRequest& out) {
  auto it = body.find("tool_choice");
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) {
    const std::string mode = it->get<std::string>();
    if (mode != "none" && mode != "auto" && mode != "required") {
      return bad("tool_choice", "invalid_value",
                 detail::concat({"'tool_choice' is '", mode, "'; use none, auto, required or {\"type\":\"function\",...}"}));
    }
    if (mode == "required" && out.client_tools.empty()) {
      return bad("tool_choice", "invalid_value", "'tool_choice' is 'required' but the request has no 'tools'");
    }
    out.tool_choice = mode;
    return std::nullopt;
  }
  const json* fn = it->is_object() ? &*it : nullptr;
  if (fn != nullptr && fn->contains("function") && (*fn)["function"].is_object()) fn = &(*fn)["function"];
  if (fn == nullptr || !fn->contains("name") || !(*fn)["name"].is_string()) {
    return wrong_type("tool_choice", "none, auto, required or {\"type\":\"function\",\"function\":{\"name\":...}}", *it);
  }
  const std::string name = (*fn)["name"].get<std::string>();
  bool known = false;
  for (const ToolSpec& t : out.client_tools) known = known || t.name == name;
  if (!known) {
    return bad("tool_choice", "invalid_value",
               detail::concat({"'tool_choice' names '", name, "', which is not one of the request's 'tools'"}));
  }
  out.tool_choice = name;
  return std::nullopt;
}

// Fields a keel run cannot honour: the deprecated functions, several choices.
std::optional<OpenAiError> refuse_unsupported(const json& body) {
  for (const char* name : {"functions", "function_call"}) {
    auto it = body.find(name);
    if (it != body.end() && !it->is_null() && !(it->is_array() && it->empty())) {
      return bad(name, "unsupported_parameter",
                 detail::concat({"'", name, "' is the deprecated form; send 'tools' and 'tool_choice' instead"}));
    }
  }
  std::optional<int64_t> n;
  if (auto e = read_integer(body, "n", n)) return e;
  if (n && *n != 1) {
    return bad("n", "unsupported_value", detail::concat({"'n' is ", std::to_string(*n), "; a keel run gives one answer: send n=1 or leave it out"}));
  }
  return std::nullopt;
}

std::optional<OpenAiError> read_body(const json& body, ChatRequest& out) {
  if (!body.is_object()) return wrong_type("body", "a JSON object", body);
  auto model = body.find("model");
  if (model == body.end() || model->is_null()) {
    return bad("model", "missing_required_parameter", "'model' is missing; send the name of a keel profile (GET /v1/models lists them)");
  }
  if (!model->is_string()) return wrong_type("model", "a string (a keel profile's name)", *model);
  out.model = model->get<std::string>();
  auto messages = body.find("messages");
  if (messages == body.end() || messages->is_null()) {
    return bad("messages", "missing_required_parameter", "'messages' is missing; send the conversation, ending with a user message");
  }
  if (auto e = refuse_unsupported(body)) return e;
  if (auto tools = body.find("tools"); tools != body.end()) {
    if (auto e = read_tools(*tools, out.client_tools)) return e;
  }
  if (auto e = read_tool_choice(body, out)) return e;
  bool parallel = true;  // accepted; a round's calls are handed over together either way
  if (auto e = read_bool(body, "parallel_tool_calls", parallel)) return e;
  if (auto format = body.find("response_format"); format != body.end()) {
    std::variant<AnswerFormat, OpenAiError> f = read_answer_format(*format, "response_format", false);
    if (auto* e = std::get_if<OpenAiError>(&f)) return *e;
    out.format = std::get<AnswerFormat>(std::move(f));
  }
  if (auto e = read_bool(body, "stream", out.stream)) return e;
  auto options = body.find("stream_options");
  if (options != body.end() && !options->is_null()) {
    if (!options->is_object()) return wrong_type("stream_options", "an object", *options);
    auto usage = options->find("include_usage");
    if (usage != options->end() && !usage->is_null()) {
      if (!usage->is_boolean()) return wrong_type("stream_options.include_usage", "true or false", *usage);
      out.include_usage = usage->get<bool>();
    }
  }
  if (auto e = read_number(body, "temperature", out.sampling.temperature)) return e;
  if (auto e = read_number(body, "top_p", out.sampling.top_p)) return e;
  if (auto e = read_integer(body, "seed", out.sampling.seed)) return e;
  for (const char* name : {"max_tokens", "max_completion_tokens"}) {  // the newer name wins
    std::optional<int64_t> limit;
    if (auto e = read_integer(body, name, limit)) return e;
    if (!limit) continue;
    if (*limit < 1 || *limit > std::numeric_limits<int>::max()) {
      return bad(name, "invalid_value", detail::concat({"'", name, "' must be a positive integer; got ", std::to_string(*limit)}));
    }
    out.sampling.max_tokens = static_cast<int>(*limit);
  }
  return read_messages(*messages, out);
}

}  // namespace

std::variant<ChatRequest, OpenAiError> parse_chat_request(std::string_view body) {
  json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return bad("", "invalid_json",
               "the request body is not valid JSON; send a chat completions request such as "
               "{\"model\":\"default\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
  }
  ChatRequest out;
  try {  // the checks above use only non-throwing accessors; this guards what they missed
    if (auto e = read_body(parsed, out)) return *e;
  } catch (const json::exception& e) {
    return bad("", "invalid_request", detail::concat({"the request could not be read: ", e.what()}));
  }
  return out;
}

}  // namespace keel::api
