#include <nlohmann/json.hpp>

#include "keel/core/json_codec.hpp"

namespace keel {
namespace {

using nlohmann::json;

Result<Role> role_from(const json& j) {
  if (!j.is_string()) return Status::InvalidArgument("message field 'role' must be a string");
  const std::string s = j.get<std::string>();
  if (s == "system") return Role::kSystem;
  if (s == "user") return Role::kUser;
  if (s == "assistant") return Role::kAssistant;
  if (s == "tool") return Role::kTool;
  return Status::InvalidArgument("message role must be system, user, assistant or tool, got '" + s + "'");
}

Result<std::string> optional_text(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::string();
  if (!j[key].is_string()) return Status::InvalidArgument(std::string("message field '") + key + "' must be a string");
  return j[key].get<std::string>();
}

json sampling_to_json(const SamplingParams& s) {
  json j = json::object();
  if (s.temperature) j["temperature"] = *s.temperature;
  if (s.max_tokens) j["max_tokens"] = *s.max_tokens;
  if (s.top_p) j["top_p"] = *s.top_p;
  if (s.seed) j["seed"] = *s.seed;
  if (s.top_k) j["top_k"] = *s.top_k;
  if (s.min_p) j["min_p"] = *s.min_p;
  if (s.repeat_penalty) j["repeat_penalty"] = *s.repeat_penalty;
  if (!s.stop.empty()) j["stop"] = s.stop;
  return j;
}

}  // namespace

json chat_message_to_json(const Message& m) {
  json j = {{"role", role_name(m.role)}, {"content", m.content}};
  if (!m.tool_calls.empty()) {
    j["tool_calls"] = json::array();
    for (const ToolCall& c : m.tool_calls)
      j["tool_calls"].push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
  }
  if (!m.tool_call_id.empty()) j["tool_call_id"] = m.tool_call_id;
  if (!m.name.empty()) j["name"] = m.name;
  if (!m.reasoning.empty()) j["reasoning"] = m.reasoning;
  if (!m.metadata.empty()) j["metadata"] = m.metadata;
  return j;
}

Result<Message> chat_message_from_json(const json& j) {
  if (!j.is_object()) return Status::InvalidArgument("a message must be a JSON object");
  if (!j.contains("role")) return Status::InvalidArgument("a message needs a 'role'");
  Message m;
  KEEL_ASSIGN_OR_RETURN(m.role, role_from(j["role"]));
  KEEL_ASSIGN_OR_RETURN(m.content, optional_text(j, "content"));
  KEEL_ASSIGN_OR_RETURN(m.tool_call_id, optional_text(j, "tool_call_id"));
  KEEL_ASSIGN_OR_RETURN(m.name, optional_text(j, "name"));
  KEEL_ASSIGN_OR_RETURN(m.reasoning, optional_text(j, "reasoning"));
  if (j.contains("tool_calls") && !j["tool_calls"].is_null()) {
    if (!j["tool_calls"].is_array()) return Status::InvalidArgument("message field 'tool_calls' must be an array");
    for (const json& c : j["tool_calls"]) {
      if (!c.is_object() || !c.contains("name") || !c["name"].is_string()) {
        return Status::InvalidArgument("each tool call needs a string 'name'");
      }
      ToolCall call;
      call.name = c["name"].get<std::string>();
      KEEL_ASSIGN_OR_RETURN(call.id, optional_text(c, "id"));
      if (c.contains("arguments")) {
        call.arguments = c["arguments"].is_string() ? c["arguments"].get<std::string>() : c["arguments"].dump();
      } else {
        call.arguments = "{}";
      }
      m.tool_calls.push_back(std::move(call));
    }
  }
  if (j.contains("metadata") && !j["metadata"].is_null()) {
    if (!j["metadata"].is_object()) return Status::InvalidArgument("message field 'metadata' must be an object");
    for (auto it = j["metadata"].begin(); it != j["metadata"].end(); ++it) {
      if (!it.value().is_string()) return Status::InvalidArgument("message metadata values must be strings");
      m.metadata[it.key()] = it.value().get<std::string>();
    }
  }
  return m;
}

Result<std::vector<Message>> chat_messages_from_json(const json& j, std::string_view what) {
  if (!j.is_array()) return Status::InvalidArgument("'" + std::string(what) + "' must be an array of messages");
  std::vector<Message> out;
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    auto m = chat_message_from_json(j[i]);
    if (!m.ok())
      return Status::InvalidArgument(std::string(what) + "[" + std::to_string(i) + "]: " + m.status().message());
    out.push_back(std::move(*m));
  }
  return out;
}

Result<std::vector<ToolSpec>> tool_specs_from_json(const json& j, std::string_view what) {
  if (!j.is_array()) return Status::InvalidArgument("'" + std::string(what) + "' must be an array of tool specs");
  std::vector<ToolSpec> out;
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    auto t = tool_spec_from_json(j[i]);
    if (!t.ok())
      return Status::InvalidArgument(std::string(what) + "[" + std::to_string(i) + "]: " + t.status().message());
    out.push_back(std::move(*t));
  }
  return out;
}

json tools_to_json(std::span<const ToolSpec> tools) {
  json out = json::array();
  for (const ToolSpec& t : tools) {
    json params = json::parse(t.parameters_schema.empty() ? std::string("{}") : t.parameters_schema, nullptr, false);
    if (params.is_discarded() || !params.is_object()) params = json{{"type", "object"}};
    out.push_back({{"name", t.name}, {"description", t.description}, {"parameters", std::move(params)}});
  }
  return out;
}

json model_request_to_json(const ModelRequest& r, size_t first_message, const json* rendered_tools) {
  json messages = json::array();
  size_t index = 0;
  r.for_each_message([&](const Message& m) {
    if (index++ >= first_message) messages.push_back(chat_message_to_json(m));
  });
  json j = {{"messages", std::move(messages)},
            {"tools", !r.tools_enabled            ? json::array()
                      : rendered_tools != nullptr ? *rendered_tools
                                                  : tools_to_json(r.tools)},
            {"tools_enabled", r.tools_enabled},
            {"round", r.round},
            {"final_round", r.final_round},
            {"sampling", sampling_to_json(r.sampling)}};
  if (first_message > 0) j["messages_from"] = first_message;
  if (!r.tool_choice.empty()) j["tool_choice"] = r.tool_choice;
  if (!r.response_schema.empty()) j["response_schema"] = r.response_schema;
  return j;
}

}  // namespace keel
