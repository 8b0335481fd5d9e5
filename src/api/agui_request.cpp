#include "api/agui_request.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "api/agui_events.hpp"
#include "api/request_fields.hpp"
#include "core/text/text_util.hpp"

namespace keel::api {
namespace {

using nlohmann::json;

AguiError agui_bad(std::string code, std::string message) {
  return {400, std::move(code), std::move(message)};
}

AguiError agui_wrong_type(const std::string& field, std::string_view wanted, const json& got) {
  return agui_bad("invalid_type", detail::concat({"'", field, "' must be ", wanted, "; got ", fields::kind_of(got)}));
}

// A string, or an array of content parts of which only text parts are taken (joined by newlines).
std::optional<AguiError> agui_read_content(const json& content, const std::string& where, bool null_ok,
                                           std::string& out) {
  if (content.is_string()) {
    out = content.get<std::string>();
    return std::nullopt;
  }
  if (content.is_null() && null_ok) return std::nullopt;
  if (!content.is_array()) return agui_wrong_type(where, "a string or an array of text parts", content);
  for (size_t i = 0; i < content.size(); ++i) {
    const json& part = content[i];
    const std::string part_at = fields::indexed(where, i);
    if (!part.is_object()) return agui_wrong_type(part_at, "an object {\"type\":\"text\",\"text\":...}", part);
    const std::string type = part.contains("type") && part["type"].is_string() ? part["type"].get<std::string>() : "";
    if (type != "text") {
      return agui_bad("unsupported_content",
                      detail::concat({"'", part_at, "' is a '", type,
                                      "' part; keel takes text only: send the content as a string or as text parts"}));
    }
    if (!part.contains("text") || !part["text"].is_string()) {
      return agui_bad("missing_field", detail::concat({"'", part_at, "' needs a string \"text\""}));
    }
    if (!out.empty()) out.push_back('\n');
    out.append(part["text"].get<std::string>());
  }
  return std::nullopt;
}

std::optional<AguiError> agui_read_calls(const json& calls, const std::string& where, std::vector<ToolCall>& out) {
  if (calls.is_null()) return std::nullopt;
  if (!calls.is_array()) return agui_wrong_type(where, "an array", calls);
  for (size_t i = 0; i < calls.size(); ++i) {
    const json& c = calls[i];
    const std::string at = fields::indexed(where, i);
    if (!c.is_object()) return agui_wrong_type(at, "an object {\"id\",\"type\":\"function\",\"function\"}", c);
    const json* fn = c.contains("function") && c["function"].is_object() ? &c["function"] : nullptr;
    if (!c.contains("id") || !c["id"].is_string() || fn == nullptr || !fn->contains("name") ||
        !(*fn)["name"].is_string()) {
      return agui_bad("missing_field",
                      detail::concat({"'", at, "' needs a string \"id\" and a \"function\" with a string \"name\""}));
    }
    ToolCall call;
    call.id = c["id"].get<std::string>();
    call.name = (*fn)["name"].get<std::string>();
    const json args = fn->value("arguments", json());
    call.arguments = args.is_string() ? args.get<std::string>() : args.is_object() ? args.dump() : "{}";
    out.push_back(std::move(call));
  }
  return std::nullopt;
}

std::optional<AguiError> agui_read_messages(const json& messages, std::vector<Message>& out) {
  for (size_t i = 0; i < messages.size(); ++i) {
    const json& m = messages[i];
    const std::string where = fields::indexed("messages", i);
    if (!m.is_object()) return agui_wrong_type(where, "a message object", m);
    if (!m.contains("role") || !m["role"].is_string()) {
      return agui_bad("missing_field", detail::concat({"'", where, "' needs a \"role\""}));
    }
    const std::string role = m["role"].get<std::string>();
    static const json kNone;
    const json& content = m.contains("content") ? m["content"] : kNone;
    const std::string content_at = fields::dotted(where, "content");
    Message msg;
    if (role == "user") {
      msg.role = Role::kUser;
      if (auto e = agui_read_content(content, content_at, false, msg.content)) return e;
    } else if (role == "assistant") {
      msg.role = Role::kAssistant;
      if (auto e = agui_read_content(content, content_at, true, msg.content)) return e;
      if (m.contains("toolCalls")) {
        if (auto e = agui_read_calls(m["toolCalls"], fields::dotted(where, "toolCalls"), msg.tool_calls)) return e;
      }
    } else if (role == "tool") {
      msg.role = Role::kTool;
      if (!m.contains("toolCallId") || !m["toolCallId"].is_string()) {
        return agui_bad("missing_field", detail::concat({"'", where, "' needs a string \"toolCallId\""}));
      }
      msg.tool_call_id = m["toolCallId"].get<std::string>();
      if (auto e = agui_read_content(content, content_at, true, msg.content)) return e;
      if (m.contains("error") && m["error"].is_string() && msg.content.empty())
        msg.content = m["error"].get<std::string>();
    } else if (role == "system" || role == "developer" || role == "activity" || role == "reasoning") {
      continue;  // keel writes its own system prompt; progress and reasoning are not conversation
    } else {
      return agui_bad("invalid_value",
                      detail::concat({"'", where, ".role' is '", role,
                                      "'; use user, assistant, tool, system, developer, activity or reasoning"}));
    }
    out.push_back(std::move(msg));
  }
  return std::nullopt;
}

std::optional<AguiError> agui_read_tools(const json& tools, std::vector<ToolSpec>& out) {
  if (tools.is_null()) return std::nullopt;
  if (!tools.is_array()) return agui_wrong_type("tools", "an array of tools", tools);
  for (size_t i = 0; i < tools.size(); ++i) {
    const json& t = tools[i];
    const std::string where = fields::indexed("tools", i);
    if (!t.is_object()) return agui_wrong_type(where, "an object {\"name\",\"description\",\"parameters\"}", t);
    if (!t.contains("name") || !t["name"].is_string() || t["name"].get<std::string>().empty()) {
      return agui_bad("missing_field", detail::concat({"'", where, "' needs a string \"name\""}));
    }
    ToolSpec spec;
    spec.name = t["name"].get<std::string>();
    if (t.contains("description") && t["description"].is_string())
      spec.description = t["description"].get<std::string>();
    if (t.contains("parameters") && !t["parameters"].is_null()) {
      if (!t["parameters"].is_object()) {
        return agui_wrong_type(fields::dotted(where, "parameters"), "a JSON Schema object", t["parameters"]);
      }
      spec.parameters_schema = t["parameters"].dump();
    }
    spec.client_side = true;
    out.push_back(std::move(spec));
  }
  return std::nullopt;
}

std::optional<AguiError> agui_read_context(const json& context, std::string& out) {
  if (context.is_null()) return std::nullopt;
  if (!context.is_array()) return agui_wrong_type("context", "an array of {\"description\",\"value\"}", context);
  for (size_t i = 0; i < context.size(); ++i) {
    const json& c = context[i];
    if (!c.is_object() || !c.value("description", json()).is_string() || !c.value("value", json()).is_string()) {
      return agui_wrong_type(fields::indexed("context", i), "an object with string \"description\" and \"value\"", c);
    }
    if (!out.empty()) out.push_back('\n');
    out.append(c["description"].get<std::string>()).append(": ").append(c["value"].get<std::string>());
  }
  return std::nullopt;
}

std::optional<AguiError> agui_read_body(const json& body, AguiRequest& out) {
  if (!body.is_object()) return agui_wrong_type("body", "a RunAgentInput object", body);
  for (const char* name : {"threadId", "runId"}) {
    if (!body.contains(name) || body[name].is_null()) {
      return agui_bad("missing_field",
                      detail::concat({"'", name, "' is missing; send the thread's and the run's ids"}));
    }
    if (!body[name].is_string() || body[name].get<std::string>().empty()) {
      return agui_wrong_type(name, "a non-empty string", body[name]);
    }
  }
  out.thread_id = body["threadId"].get<std::string>();
  out.run_id = body["runId"].get<std::string>();
  if (!body.contains("messages")) {
    return agui_bad("missing_field", "'messages' is missing; send the thread's messages, ending with the user's");
  }
  if (!body["messages"].is_array()) return agui_wrong_type("messages", "an array of messages", body["messages"]);
  if (auto e = agui_read_messages(body["messages"], out.messages)) return e;
  if (body.contains("tools")) {
    if (auto e = agui_read_tools(body["tools"], out.client_tools)) return e;
  }
  if (body.contains("context")) {
    if (auto e = agui_read_context(body["context"], out.context)) return e;
  }
  if (body.contains("state")) out.state = body["state"];
  if (body.contains("forwardedProps") && body["forwardedProps"].is_object()) {
    const json& props = body["forwardedProps"];
    if (props.contains("profile") && !props["profile"].is_null()) {
      if (!props["profile"].is_string()) return agui_wrong_type("forwardedProps.profile", "a string", props["profile"]);
      out.profile = props["profile"].get<std::string>();
    }
  }
  return std::nullopt;
}

// Drops the calls no tool message answers and the tool messages that answer no call; an assistant
// message left with neither text nor calls goes too. The calls of the message at `keep` stay (a
// continuation's, which the run checks itself).
std::vector<Message> agui_answered_only(std::vector<Message> messages, size_t keep) {
  std::set<std::string> answered;
  std::set<std::string> called;
  for (const Message& m : messages) {
    if (m.role == Role::kTool) answered.insert(m.tool_call_id);
    for (const ToolCall& c : m.tool_calls) called.insert(c.id);
  }
  std::vector<Message> out;
  for (size_t i = 0; i < messages.size(); ++i) {
    Message& m = messages[i];
    if (m.role == Role::kTool && called.count(m.tool_call_id) == 0) continue;
    if (m.role == Role::kAssistant && i != keep) {
      std::erase_if(m.tool_calls, [&](const ToolCall& c) { return answered.count(c.id) == 0; });
      if (m.content.empty() && m.tool_calls.empty()) continue;
    }
    out.push_back(std::move(m));
  }
  return out;
}

// Tool messages take the name of the call they answer (the model's API wants it on some backends).
void agui_name_results(std::vector<Message>& messages) {
  for (size_t i = 0; i < messages.size(); ++i) {
    if (messages[i].role != Role::kTool) continue;
    for (size_t j = i; j-- > 0 && messages[i].name.empty();) {
      for (const ToolCall& c : messages[j].tool_calls) {
        if (c.id == messages[i].tool_call_id) messages[i].name = c.name;
      }
    }
  }
}

}  // namespace

std::variant<AguiRequest, AguiError> parse_agui_request(std::string_view body) {
  json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return agui_bad(
        "invalid_json",
        "the request body is not valid JSON; send an AG-UI RunAgentInput such as "
        "{\"threadId\":\"t1\",\"runId\":\"r1\",\"messages\":[{\"id\":\"m1\",\"role\":\"user\",\"content\":\"hi\"}]}");
  }
  AguiRequest out;
  try {  // the readers use non-throwing accessors; this guards what they missed
    if (auto e = agui_read_body(parsed, out)) return *e;
  } catch (const json::exception& e) {
    return agui_bad("invalid_request", detail::concat({"the request could not be read: ", e.what()}));
  }
  return out;
}

std::variant<AguiTurn, AguiError> new_thread_turn(std::vector<Message> messages) {
  if (messages.empty()) {
    return agui_bad("nothing_to_run", "'messages' holds no user message; send the user's request as the last message");
  }
  AguiTurn turn;
  const Role last = messages.back().role;
  if (last == Role::kUser) {
    turn.task = std::move(messages.back().content);
    messages.pop_back();
    if (turn.task.empty()) return agui_bad("nothing_to_run", "the last user message has no text; send the task");
    const size_t none = messages.size();
    turn.earlier = agui_answered_only(std::move(messages), none);
  } else if (last == Role::kTool) {
    size_t keep = messages.size();
    for (size_t i = messages.size(); i-- > 0;) {
      if (messages[i].role == Role::kAssistant) {
        keep = i;
        break;
      }
    }
    turn.earlier = agui_answered_only(std::move(messages), keep);
  } else {
    return agui_bad("nothing_to_run",
                    "the last message is the assistant's; end 'messages' with a user message or with tool messages "
                    "answering its toolCalls");
  }
  agui_name_results(turn.earlier);
  return turn;
}

std::vector<ToolCall> unanswered_calls(const std::vector<Message>& stored) {
  std::set<std::string> answered;
  for (size_t i = stored.size(); i-- > 0;) {
    const Message& m = stored[i];
    if (m.role == Role::kTool) {
      answered.insert(m.tool_call_id);
      continue;
    }
    std::vector<ToolCall> pending;
    if (m.role != Role::kAssistant) return pending;
    for (const ToolCall& c : m.tool_calls) {
      if (answered.count(c.id) == 0) pending.push_back(c);
    }
    return pending;
  }
  return {};
}

std::variant<AguiTurn, AguiError> stored_thread_turn(const std::vector<Message>& messages,
                                                     const std::vector<ToolCall>& pending) {
  size_t start = 0;
  for (size_t i = messages.size(); i-- > 0;) {
    if (messages[i].role == Role::kAssistant) {
      start = i + 1;
      break;
    }
  }
  AguiTurn turn;
  for (size_t i = start; i < messages.size(); ++i) {
    if (messages[i].role == Role::kUser) turn.task = messages[i].content;
  }
  for (const ToolCall& call : pending) {
    auto answer = std::find_if(
        messages.begin() + static_cast<std::ptrdiff_t>(start), messages.end(),
        [&](const Message& m) { return m.role == Role::kTool && agui::keel_call_id_matches(m.tool_call_id, call.id); });
    if (answer == messages.end() && turn.task.empty()) continue;  // the run refuses a continuation that misses one
    Message result;
    result.role = Role::kTool;
    result.tool_call_id = call.id;
    result.name = call.name;
    result.content = answer != messages.end() ? answer->content : "not run: the user went on without running this call";
    turn.added.push_back(std::move(result));
  }
  if (turn.task.empty() && turn.added.empty()) {
    return agui_bad("nothing_to_run",
                    "nothing new to run on this thread: after its last assistant message, send a user message or tool "
                    "messages answering the tool calls the last run handed over");
  }
  return turn;
}

}  // namespace keel::api
