#include "api/responses_request.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "api/request_fields.hpp"
#include "core/text/text_util.hpp"

namespace keel::api {
namespace responses_request_impl {

using nlohmann::json;
using Error = std::optional<OpenAiError>;

using fields::bad;
using fields::dotted;
using fields::kind_of;
using fields::wrong_type;
inline std::string at(std::string_view base, size_t index) { return fields::indexed(base, index); }

OpenAiError missing(const std::string& param, std::string_view what) {
  return bad(param, "missing_required_parameter", detail::concat({"'", param, "' is missing; ", what}));
}

// A string field of `object` that must be there and non-empty.
Error required_string(const json& object, const char* field, const std::string& where, std::string& out) {
  auto it = object.find(field);
  const std::string param = dotted(where, field);
  if (it == object.end() || it->is_null()) return missing(param, detail::concat({"send a string \"", field, "\""}));
  if (!it->is_string()) return wrong_type(param, "a string", *it);
  out = it->get<std::string>();
  if (out.empty()) return bad(param, "invalid_value", detail::concat({"'", param, "' is empty"}));
  return std::nullopt;
}

// A message's content: a string, or an array of text parts (input_text, output_text, refusal),
// made canonical as an array of {"type","text"} parts of `part_type`.
Error read_content(const json& content, const std::string& where, const char* part_type, json& parts) {
  parts = json::array();
  if (content.is_string()) {
    parts.push_back({{"type", part_type}, {"text", content.get<std::string>()}});
    if (std::string_view(part_type) == "output_text") parts.back()["annotations"] = json::array();
    return std::nullopt;
  }
  if (!content.is_array()) return wrong_type(where, "a string or an array of text parts", content);
  for (size_t i = 0; i < content.size(); ++i) {
    const json& part = content[i];
    const std::string part_at = at(where, i);
    if (!part.is_object()) return wrong_type(part_at, "an object {\"type\":\"input_text\",\"text\":...}", part);
    auto type = part.find("type");
    if (type == part.end() || !type->is_string()) return missing(dotted(part_at, "type"), "send \"input_text\"");
    const std::string t = type->get<std::string>();
    const char* field = (t == "input_text" || t == "output_text" || t == "text") ? "text"
                        : t == "refusal"                                         ? "refusal"
                                                                                 : nullptr;
    if (field == nullptr) {
      return bad(dotted(part_at, "type"), "unsupported_value",
                 detail::concat({"'", part_at, "' is an '", t,
                                 "' part; keel takes text only: send input_text (or output_text) parts"}));
    }
    auto text = part.find(field);
    if (text == part.end() || !text->is_string()) {
      return missing(dotted(part_at, field), detail::concat({"send the part's \"", field, "\" as a string"}));
    }
    json canonical = {{"type", part_type}, {"text", text->get<std::string>()}};
    if (std::string_view(part_type) == "output_text") canonical["annotations"] = json::array();
    parts.push_back(std::move(canonical));
  }
  return std::nullopt;
}

// One message item {"type":"message"?, "role", "content", "id"?}.
Error read_message(const json& item, const std::string& where, json& out) {
  auto role = item.find("role");
  if (role == item.end() || !role->is_string()) {
    return missing(dotted(where, "role"), "send user, assistant, system or developer");
  }
  const std::string r = role->get<std::string>();
  if (r != "user" && r != "assistant" && r != "system" && r != "developer") {
    return bad(dotted(where, "role"), "invalid_value",
               detail::concat({"'", where, ".role' is '", r, "'; use user, assistant, system or developer"}));
  }
  auto content = item.find("content");
  if (content == item.end() || content->is_null()) return missing(dotted(where, "content"), "send the message's text");
  json parts;
  if (auto e =
          read_content(*content, dotted(where, "content"), r == "assistant" ? "output_text" : "input_text", parts)) {
    return e;
  }
  out = {{"type", "message"}, {"role", r}, {"content", std::move(parts)}, {"status", "completed"}};
  if (item.contains("id") && item["id"].is_string()) out["id"] = item["id"];
  return std::nullopt;
}

// The call's arguments: a JSON string (an object is accepted and written as one).
Error read_arguments(const json& item, const std::string& where, std::string& out) {
  auto args = item.find("arguments");
  if (args == item.end() || args->is_null()) {
    out = "{}";
  } else if (args->is_string()) {
    out = args->get<std::string>();
  } else if (args->is_object()) {
    out = args->dump();
  } else {
    return wrong_type(dotted(where, "arguments"), "a JSON string", *args);
  }
  return std::nullopt;
}

// A function_call_output's output: a string, or an array of input_text parts (joined).
Error read_output(const json& item, const std::string& where, std::string& out) {
  auto output = item.find("output");
  const std::string param = dotted(where, "output");
  if (output == item.end() || output->is_null()) return missing(param, "send the call's result as a string");
  if (output->is_string()) {
    out = output->get<std::string>();
    return std::nullopt;
  }
  json parts;
  if (auto e = read_content(*output, param, "input_text", parts)) return e;
  for (const json& p : parts) {
    if (!out.empty()) out.push_back('\n');
    out.append(p["text"].get<std::string>());
  }
  return std::nullopt;
}

// One input item, made canonical.
Error read_item(const json& item, const std::string& where, json& out) {
  if (!item.is_object()) return wrong_type(where, "an input item object", item);
  std::string type = "message";
  if (auto t = item.find("type"); t != item.end() && !t->is_null()) {
    if (!t->is_string()) return wrong_type(dotted(where, "type"), "a string", *t);
    type = t->get<std::string>();
  }
  if (type == "message") return read_message(item, where, out);
  if (type == "function_call") {
    std::string call_id, name, arguments;
    if (auto e = required_string(item, "call_id", where, call_id)) return e;
    if (auto e = required_string(item, "name", where, name)) return e;
    if (auto e = read_arguments(item, where, arguments)) return e;
    out = {{"type", "function_call"},
           {"call_id", call_id},
           {"name", name},
           {"arguments", arguments},
           {"status", "completed"}};
    if (item.contains("id") && item["id"].is_string()) out["id"] = item["id"];
    return std::nullopt;
  }
  if (type == "function_call_output") {
    std::string call_id, output;
    if (auto e = required_string(item, "call_id", where, call_id)) return e;
    if (auto e = read_output(item, where, output)) return e;
    out = {{"type", "function_call_output"}, {"call_id", call_id}, {"output", output}, {"status", "completed"}};
    if (item.contains("id") && item["id"].is_string()) out["id"] = item["id"];
    return std::nullopt;
  }
  if (type == "item_reference") {
    std::string id;
    if (auto e = required_string(item, "id", where, id)) return e;
    out = {{"type", "item_reference"}, {"id", id}};
    return std::nullopt;
  }
  if (type == "reasoning") return std::nullopt;  // a reasoning summary the client replays: nothing to run on
  return bad(dotted(where, "type"), "unsupported_value",
             detail::concat({"'", where, "' is a '", type,
                             "' item; keel takes message, function_call, function_call_output and item_reference "
                             "items"}));
}

Error read_input(const json& input, ResponsesRequest& out) {
  if (input.is_string()) {
    out.input_items.push_back({{"type", "message"},
                               {"role", "user"},
                               {"content", json::array({{{"type", "input_text"}, {"text", input.get<std::string>()}}})},
                               {"status", "completed"}});
    return std::nullopt;
  }
  if (!input.is_array()) return wrong_type("input", "a string or an array of input items", input);
  if (input.empty())
    return bad("input", "invalid_value", "'input' is empty; send the task as a string or a user message");
  for (size_t i = 0; i < input.size(); ++i) {
    json item;
    if (auto e = read_item(input[i], at("input", i), item)) return e;
    if (!item.is_null()) out.input_items.push_back(std::move(item));
  }
  return std::nullopt;
}

// `tools`: function tools {"type":"function","name","description","parameters","strict"}.
Error read_tools(const json& tools, ResponsesRequest& out) {
  if (tools.is_null()) return std::nullopt;
  if (!tools.is_array()) return wrong_type("tools", "an array of function tools", tools);
  for (size_t i = 0; i < tools.size(); ++i) {
    const json& t = tools[i];
    const std::string where = at("tools", i);
    if (!t.is_object()) return wrong_type(where, "an object {\"type\":\"function\",\"name\":...}", t);
    auto type = t.find("type");
    if (type == t.end() || !type->is_string()) return missing(dotted(where, "type"), "send \"function\"");
    if (*type != "function") {
      return bad(dotted(where, "type"), "unsupported_value",
                 detail::concat({"'", where, ".type' is '", type->get<std::string>(),
                                 "'; keel offers its own tools through the profile and takes only the client's "
                                 "function tools here (\"type\":\"function\")"}));
    }
    ToolSpec spec;
    if (auto e = required_string(t, "name", where, spec.name)) return e;
    if (auto d = t.find("description"); d != t.end() && d->is_string()) spec.description = d->get<std::string>();
    if (auto p = t.find("parameters"); p != t.end() && !p->is_null()) {
      if (!p->is_object()) return wrong_type(dotted(where, "parameters"), "a JSON Schema object", *p);
      spec.parameters_schema = p->dump();
    }
    spec.client_side = true;
    out.client_tools.push_back(std::move(spec));
    json echoed = {{"type", "function"},
                   {"name", out.client_tools.back().name},
                   {"description", t.contains("description") ? t["description"] : json(nullptr)},
                   {"parameters", t.contains("parameters") ? t["parameters"] : json(nullptr)},
                   {"strict", t.contains("strict") ? t["strict"] : json(nullptr)}};
    out.tools.push_back(std::move(echoed));
  }
  return std::nullopt;
}

// `tool_choice`: "none", "auto", "required" or {"type":"function","name"} naming a client tool.
Error read_tool_choice(const json& choice, ResponsesRequest& out) {
  if (choice.is_null()) return std::nullopt;
  if (choice.is_string()) {
    const std::string mode = choice.get<std::string>();
    if (mode != "none" && mode != "auto" && mode != "required") {
      return bad("tool_choice", "invalid_value",
                 detail::concat({"'tool_choice' is '", mode,
                                 "'; use none, auto, required or {\"type\":\"function\",\"name\":...}"}));
    }
    out.tool_choice = mode;
    out.tool_choice_echo = mode;
    return std::nullopt;
  }
  if (!choice.is_object())
    return wrong_type("tool_choice", "none, auto, required or {\"type\":\"function\",\"name\":...}", choice);
  const std::string type = choice.value("type", "");
  if (type != "function") {
    return bad(
        "tool_choice.type", "unsupported_value",
        detail::concat({"'tool_choice.type' is '", type,
                        "'; keel takes {\"type\":\"function\",\"name\":...} naming one of the request's tools"}));
  }
  std::string name;
  if (auto e = required_string(choice, "name", "tool_choice", name)) return e;
  bool known = false;
  for (const ToolSpec& t : out.client_tools) known = known || t.name == name;
  if (!known) {
    return bad("tool_choice.name", "invalid_value",
               detail::concat({"'tool_choice' names '", name, "', which is not one of the request's 'tools'"}));
  }
  out.tool_choice = name;
  out.tool_choice_echo = {{"type", "function"}, {"name", name}};
  return std::nullopt;
}

Error read_bool(const json& body, const char* name, bool& out) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean()) return wrong_type(name, "true or false", *it);
  out = it->get<bool>();
  return std::nullopt;
}

Error read_number(const json& body, const char* name, std::optional<double>& out) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) return wrong_type(name, "a number", *it);
  out = it->get<double>();
  return std::nullopt;
}

Error read_text(const json& text, ResponsesRequest& out) {
  if (text.is_null()) return std::nullopt;
  if (!text.is_object()) return wrong_type("text", "an object {\"format\":{...}}", text);
  auto format = text.find("format");
  if (format != text.end()) {
    std::variant<AnswerFormat, OpenAiError> f = read_answer_format(*format, "text.format", true);
    if (auto* e = std::get_if<OpenAiError>(&f)) return *e;
    out.text_format = std::get<AnswerFormat>(std::move(f));
  }
  out.text = text;
  if (!out.text.contains("format") || out.text["format"].is_null()) out.text["format"] = {{"type", "text"}};
  return std::nullopt;
}

// Known features a keel run cannot honour.
Error refuse_unsupported(const json& body) {
  for (const char* name : {"conversation", "prompt"}) {
    auto it = body.find(name);
    if (it != body.end() && !it->is_null()) {
      return bad(
          name, "unsupported_parameter",
          detail::concat(
              {"'", name, "' is not supported by keel; send the input items (or previous_response_id) instead"}));
    }
  }
  if (auto it = body.find("top_logprobs"); it != body.end() && !it->is_null()) {
    if (!it->is_number_integer()) return wrong_type("top_logprobs", "an integer", *it);
    if (it->get<int64_t>() != 0) {
      return bad("top_logprobs", "unsupported_value",
                 "keel does not report log probabilities; send 0 or leave 'top_logprobs' out");
    }
  }
  if (auto it = body.find("truncation"); it != body.end() && !it->is_null()) {
    if (!it->is_string() || (*it != "auto" && *it != "disabled")) {
      return bad("truncation", "invalid_value", "'truncation' must be \"auto\" or \"disabled\"");
    }
  }
  return std::nullopt;
}

Error read_body(const json& body, ResponsesRequest& out) {
  if (!body.is_object()) return wrong_type("body", "a JSON object", body);
  auto model = body.find("model");
  if (model == body.end() || model->is_null()) {
    return missing("model", "send the name of a keel profile (GET /v1/models lists them)");
  }
  if (!model->is_string()) return wrong_type("model", "a string (a keel profile's name)", *model);
  out.model = model->get<std::string>();
  if (auto e = refuse_unsupported(body)) return e;
  auto input = body.find("input");
  if (input == body.end() || input->is_null())
    return missing("input", "send the task as a string or a list of input items");
  if (auto e = read_input(*input, out)) return e;
  if (auto it = body.find("instructions"); it != body.end() && !it->is_null()) {
    if (!it->is_string()) return wrong_type("instructions", "a string", *it);
    out.instructions = *it;
  }
  if (auto it = body.find("previous_response_id"); it != body.end() && !it->is_null()) {
    if (!it->is_string()) return wrong_type("previous_response_id", "a string (a response's id)", *it);
    out.previous_response_id = it->get<std::string>();
  }
  for (auto [name, field] :
       {std::pair{"store", &out.store}, std::pair{"stream", &out.stream}, std::pair{"background", &out.background},
        std::pair{"parallel_tool_calls", &out.parallel_tool_calls}}) {
    if (auto e = read_bool(body, name, *field)) return e;
  }
  if (out.background && !out.store) {
    return bad("background", "invalid_value",
               "a background response must be stored: send store=true (or leave it out)");
  }
  if (auto it = body.find("tools"); it != body.end()) {
    if (auto e = read_tools(*it, out)) return e;
  }
  if (auto it = body.find("tool_choice"); it != body.end()) {
    if (auto e = read_tool_choice(*it, out)) return e;
  }
  if (out.tool_choice == "required" && out.client_tools.empty()) {
    return bad("tool_choice", "invalid_value", "'tool_choice' is 'required' but the request has no 'tools'");
  }
  if (auto e = read_number(body, "temperature", out.sampling.temperature)) return e;
  if (auto e = read_number(body, "top_p", out.sampling.top_p)) return e;
  if (auto it = body.find("max_output_tokens"); it != body.end() && !it->is_null()) {
    if (!it->is_number_integer()) return wrong_type("max_output_tokens", "an integer", *it);
    const int64_t limit = it->get<int64_t>();
    if (limit < 1 || limit > std::numeric_limits<int>::max()) {
      return bad("max_output_tokens", "invalid_value",
                 detail::concat({"'max_output_tokens' must be a positive integer; got ", std::to_string(limit)}));
    }
    out.sampling.max_tokens = static_cast<int>(limit);
  }
  if (auto it = body.find("metadata"); it != body.end() && !it->is_null()) {
    if (!it->is_object()) return wrong_type("metadata", "an object of strings", *it);
    for (const auto& [key, value] : it->items()) {
      if (!value.is_string()) return wrong_type(dotted("metadata", key), "a string", value);
    }
    out.metadata = *it;
  }
  if (auto it = body.find("text"); it != body.end()) {
    if (auto e = read_text(*it, out)) return e;
  }
  return std::nullopt;
}

// The text of a canonical message item's parts.
std::string text_of(const json& item) {
  std::string out;
  for (const json& part : item["content"]) {
    if (!out.empty()) out.push_back('\n');
    out.append(part.value("text", ""));
  }
  return out;
}

std::variant<ResponsesRequest, OpenAiError> parse(std::string_view body) {
  json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return bad("", "invalid_json",
               "the request body is not valid JSON; send a request such as {\"model\":\"default\",\"input\":\"hi\"}");
  }
  ResponsesRequest out;
  try {  // the checks use non-throwing accessors; this guards what they missed
    if (auto e = read_body(parsed, out)) return *e;
  } catch (const json::exception& e) {
    return bad("", "invalid_request", detail::concat({"the request could not be read: ", e.what()}));
  }
  return out;
}

std::variant<Conversation, OpenAiError> conversation(const ResponsesRequest& request, const ItemLookup& find_item,
                                                     const std::vector<ToolCall>& earlier_calls) {
  std::map<std::string, std::string> calls;  // call_id -> tool name
  for (const ToolCall& c : earlier_calls) calls[c.id] = c.name;
  std::vector<Message> messages;
  bool last_is_call = false;  // the last message is an assistant message whose calls may grow
  for (size_t i = 0; i < request.input_items.size(); ++i) {
    json item = request.input_items[i];
    const std::string where = at("input", i);
    if (item["type"] == "item_reference") {
      std::optional<json> found = find_item ? find_item(item["id"].get<std::string>()) : std::nullopt;
      if (!found) {
        OpenAiError e = bad(dotted(where, "id"), "invalid_value",
                            detail::concat({"'", where, "' refers to the item '", item["id"].get<std::string>(),
                                            "', which no stored response holds"}));
        e.status = 404;
        return e;
      }
      item = std::move(*found);
    }
    const std::string type = item.value("type", "");
    if (type == "message") {
      const std::string role = item.value("role", "");
      last_is_call = false;
      if (role == "system" || role == "developer") continue;  // keel writes its own system prompt
      Message m;
      m.role = role == "assistant" ? Role::kAssistant : Role::kUser;
      m.content = text_of(item);
      messages.push_back(std::move(m));
      last_is_call = role == "assistant";
    } else if (type == "function_call") {
      ToolCall call;
      call.id = item.value("call_id", "");
      call.name = item.value("name", "");
      call.arguments = item.value("arguments", "{}");
      calls[call.id] = call.name;
      if (!last_is_call) {
        Message m;
        m.role = Role::kAssistant;
        messages.push_back(std::move(m));
        last_is_call = true;
      }
      messages.back().tool_calls.push_back(std::move(call));
    } else if (type == "function_call_output") {
      last_is_call = false;
      Message m;
      m.role = Role::kTool;
      m.tool_call_id = item.value("call_id", "");
      auto known = calls.find(m.tool_call_id);
      if (known == calls.end()) {
        return bad(dotted(where, "call_id"), "invalid_value",
                   detail::concat({"'", where, ".call_id' is '", m.tool_call_id,
                                   "', which no function_call before it (in the input or the previous response) has"}));
      }
      m.name = known->second;
      m.content = item.value("output", "");
      messages.push_back(std::move(m));
    } else {
      return bad(dotted(where, "type"), "unsupported_value",
                 detail::concat({"'", where, "' refers to a '", type, "' item, which keel cannot take as input"}));
    }
  }
  Conversation out;
  if (!messages.empty() && messages.back().role == Role::kTool) {
    out.earlier = std::move(messages);  // the client's results: the run goes on from them
    return out;
  }
  if (messages.empty() || messages.back().role != Role::kUser) {
    return bad("input", "invalid_value",
               "the input must end with a user message (the task) or with function_call_output items answering the "
               "model's function calls");
  }
  if (messages.back().content.empty()) {
    return bad(at("input", request.input_items.size() - 1), "invalid_value",
               "the last user message has no text; send the task");
  }
  out.task = std::move(messages.back().content);
  messages.pop_back();
  out.earlier = std::move(messages);
  return out;
}

}  // namespace responses_request_impl

std::variant<ResponsesRequest, OpenAiError> parse_responses_request(std::string_view body) {
  return responses_request_impl::parse(body);
}

std::variant<Conversation, OpenAiError> conversation_of(const ResponsesRequest& request, const ItemLookup& find_item,
                                                        const std::vector<ToolCall>& earlier_calls) {
  return responses_request_impl::conversation(request, find_item, earlier_calls);
}

}  // namespace keel::api
