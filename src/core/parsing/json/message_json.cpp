#include <nlohmann/json.hpp>

#include "core/parsing/json/codec_text.hpp"
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

void append_sampling_json(std::string& out, const SamplingParams& s) {
  // Keys in nlohmann's (sorted) order.
  char sep = '{';
  auto key = [&](std::string_view k) {
    out += sep;
    sep = ',';
    detail::append_json_key(out, k);
  };
  if (s.max_tokens) {
    key("max_tokens");
    detail::append_json_int(out, *s.max_tokens);
  }
  if (s.min_p) {
    key("min_p");
    detail::append_json_double(out, *s.min_p);
  }
  if (s.repeat_penalty) {
    key("repeat_penalty");
    detail::append_json_double(out, *s.repeat_penalty);
  }
  if (s.seed) {
    key("seed");
    detail::append_json_int(out, *s.seed);
  }
  if (!s.stop.empty()) {
    key("stop");
    detail::append_json_array(out, s.stop, detail::append_json_string);
  }
  if (s.temperature) {
    key("temperature");
    detail::append_json_double(out, *s.temperature);
  }
  if (s.top_k) {
    key("top_k");
    detail::append_json_int(out, *s.top_k);
  }
  if (s.top_p) {
    key("top_p");
    detail::append_json_double(out, *s.top_p);
  }
  if (sep == '{') out += '{';  // no member: {}
  out += '}';
}

}  // namespace

json chat_message_to_json(const Message& m) {
  std::string text;
  detail::append_message_json(text, m);
  return json::parse(text);
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
  return json::parse(detail::tools_json_text(tools));
}

json model_request_to_json(const ModelRequest& r, size_t first_message) {
  std::string text;
  detail::append_model_request_json(text, r, first_message, r.tools_enabled ? detail::tools_json_text(r.tools) : "");
  return json::parse(text);
}

namespace detail {

void append_tool_call_json(std::string& out, const ToolCall& c) {
  out += '{';
  append_string_members(out, {{"arguments", c.arguments}, {"id", c.id}, {"name", c.name}});
  out += '}';
}

void append_message_json(std::string& out, const Message& m) {
  // Keys in nlohmann's (sorted) order; the optional ones only when set.
  out += "{\"content\":";
  append_json_string(out, m.content);
  if (!m.metadata.empty()) {
    out += ",\"metadata\":";
    char sep = '{';
    for (const auto& [k, v] : m.metadata) {
      out += sep;
      sep = ',';
      append_json_key(out, k);
      append_json_string(out, v);
    }
    out += '}';
  }
  if (!m.name.empty()) {
    out += ",\"name\":";
    append_json_string(out, m.name);
  }
  if (!m.reasoning.empty()) {
    out += ",\"reasoning\":";
    append_json_string(out, m.reasoning);
  }
  out += ",\"role\":";
  append_json_string(out, role_name(m.role));
  if (!m.tool_call_id.empty()) {
    out += ",\"tool_call_id\":";
    append_json_string(out, m.tool_call_id);
  }
  if (!m.tool_calls.empty()) {
    out += ",\"tool_calls\":";
    append_json_array(out, m.tool_calls, append_tool_call_json);
  }
  out += '}';
}

std::string tools_json_text(std::span<const ToolSpec> tools) {
  std::string out;
  append_json_array(out, tools, [](std::string& text, const ToolSpec& t) {
    text += '{';
    append_string_members(text, {{"description", t.description}, {"name", t.name}});
    // The schema parsed and written again: compact, keys sorted, and {"type":"object"} for one that
    // is not a JSON object.
    json params = json::parse(t.parameters_schema.empty() ? std::string("{}") : t.parameters_schema, nullptr, false);
    if (params.is_discarded() || !params.is_object()) params = json{{"type", "object"}};
    text += ",\"parameters\":";
    text += params.dump();
    text += '}';
  });
  return out;
}

void append_model_request_json(std::string& out, const ModelRequest& r, size_t first_message,
                               std::string_view tools_text, bool tools_as_before) {
  // Keys in nlohmann's (sorted) order.
  out += "{\"final_round\":";
  append_json_bool(out, r.final_round);
  out += ",\"messages\":[";
  size_t index = 0;
  r.for_each_message([&](const Message& m) {
    if (index > first_message) out += ',';
    if (index++ >= first_message) append_message_json(out, m);
  });
  out += ']';
  if (first_message > 0) {
    out += ",\"messages_from\":";
    append_json_int(out, static_cast<std::int64_t>(first_message));
  }
  if (!r.response_schema.empty()) {
    out += ",\"response_schema\":";
    append_json_string(out, r.response_schema);
  }
  out += ",\"round\":";
  append_json_int(out, r.round);
  out += ",\"sampling\":";
  append_sampling_json(out, r.sampling);
  if (!r.tool_choice.empty()) {
    out += ",\"tool_choice\":";
    append_json_string(out, r.tool_choice);
  }
  if (!tools_as_before) {
    out += ",\"tools\":";
    out += r.tools_enabled ? tools_text : std::string_view("[]");
  }
  out += ",\"tools_enabled\":";
  append_json_bool(out, r.tools_enabled);
  if (tools_as_before) out += ",\"tools_unchanged\":true";
  out += '}';
}

}  // namespace detail
}  // namespace keel
