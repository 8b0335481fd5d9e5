// JSON of cassette exchanges. Only what reaches a backend is recorded: message metadata and the
// round counters are keel's bookkeeping and do not change what a model is asked.
#include "llm/cassette_json.hpp"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace keel::detail {
namespace {

using nlohmann::json;

json cassette_message_json(const Message& m) {
  json j = json::object();
  j["role"] = std::string(role_name(m.role));
  j["content"] = m.content;
  if (!m.tool_calls.empty()) {
    json calls = json::array();
    for (const ToolCall& c : m.tool_calls) calls.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
    j["tool_calls"] = std::move(calls);
  }
  if (!m.tool_call_id.empty()) j["tool_call_id"] = m.tool_call_id;
  if (!m.name.empty()) j["name"] = m.name;
  if (!m.reasoning.empty()) j["reasoning"] = m.reasoning;
  return j;
}

// Long values are cut so a divergence message stays one readable line.
std::string cassette_show(const json* v) {
  if (v == nullptr) return "(nothing)";
  std::string s = v->dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 160) {
    s.resize(160);
    s.append("...");
  }
  return s;
}

std::string cassette_join(const std::string& path, const std::string& key) {
  if (path.empty()) return key;
  std::string out = path;
  out.append(".").append(key);
  return out;
}

std::optional<std::string> cassette_diff_at(const json* recorded, const json* got, const std::string& path) {
  const std::string shown_path = path.empty() ? std::string("the request") : path;
  if (recorded == nullptr || got == nullptr || recorded->type() != got->type()) {
    if (recorded != nullptr && got != nullptr && *recorded == *got) return std::nullopt;
    std::string out = shown_path;
    out.append(": recorded ").append(cassette_show(recorded)).append(", got ").append(cassette_show(got));
    return out;
  }
  if (recorded->is_object()) {
    // Recorded keys in order first, then keys only the new request has.
    for (auto it = recorded->begin(); it != recorded->end(); ++it) {
      std::string sub = cassette_join(path, it.key());
      auto g = got->find(it.key());
      if (auto d = cassette_diff_at(&it.value(), g == got->end() ? nullptr : &*g, sub)) return d;
    }
    for (auto it = got->begin(); it != got->end(); ++it) {
      if (recorded->contains(it.key())) continue;
      std::string sub = cassette_join(path, it.key());
      return cassette_diff_at(nullptr, &it.value(), sub);
    }
    return std::nullopt;
  }
  if (recorded->is_array()) {
    size_t n = std::max(recorded->size(), got->size());
    for (size_t i = 0; i < n; ++i) {
      std::string sub = path;
      sub.append("[").append(std::to_string(i)).append("]");
      const json* r = i < recorded->size() ? &(*recorded)[i] : nullptr;
      const json* g = i < got->size() ? &(*got)[i] : nullptr;
      if (auto d = cassette_diff_at(r, g, sub)) return d;
    }
    return std::nullopt;
  }
  if (*recorded == *got) return std::nullopt;
  std::string out = shown_path;
  out.append(": recorded ").append(cassette_show(recorded)).append(", got ").append(cassette_show(got));
  return out;
}

Status cassette_field_error(const std::string& where, const std::string& what) {
  std::string m = where;
  m.append(": ").append(what);
  return Status::InvalidArgument(std::move(m));
}

}  // namespace

json cassette_request_json(const ModelRequest& request, bool stream) {
  json j = json::object();
  json messages = json::array();
  request.for_each_message([&](const Message& m) { messages.push_back(cassette_message_json(m)); });
  j["messages"] = std::move(messages);
  json tools = json::array();
  if (request.tools_enabled) {
    for (const ToolSpec& t : request.tools) {
      json params = json::parse(t.parameters_schema, nullptr, false);
      if (params.is_discarded()) params = t.parameters_schema;  // kept as text when it is not JSON
      tools.push_back({{"name", t.name}, {"parameters", std::move(params)}});
    }
  }
  j["tools"] = std::move(tools);
  json sampling = json::object();
  if (request.sampling.temperature) sampling["temperature"] = *request.sampling.temperature;
  if (request.sampling.max_tokens) sampling["max_tokens"] = *request.sampling.max_tokens;
  if (request.sampling.top_p) sampling["top_p"] = *request.sampling.top_p;
  if (request.sampling.seed) sampling["seed"] = *request.sampling.seed;
  j["sampling"] = std::move(sampling);
  j["stream"] = stream;
  return j;
}

json cassette_reply_json(const ModelReply& reply) {
  json j = json::object();
  j["text"] = reply.text;
  j["reasoning"] = reply.reasoning;
  json calls = json::array();
  for (const ToolCall& c : reply.tool_calls) calls.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
  j["tool_calls"] = std::move(calls);
  j["finish_reason"] = reply.finish_reason;
  j["usage"] = {{"prompt_tokens", reply.usage.prompt_tokens}, {"completion_tokens", reply.usage.completion_tokens}};
  if (reply.usage.cached_prompt_tokens > 0) j["usage"]["cached_prompt_tokens"] = reply.usage.cached_prompt_tokens;
  j["model"] = reply.model;
  return j;
}

json cassette_status_json(const Status& status) {
  return {{"code", std::string(error_code_name(status.code()))}, {"message", status.message()}};
}

Result<ModelReply> cassette_reply_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) return cassette_field_error(where, "\"reply\" must be an object");
  ModelReply r;
  try {
    r.text = j.value("text", "");
    r.reasoning = j.value("reasoning", "");
    r.finish_reason = j.value("finish_reason", "");
    r.model = j.value("model", "");
    if (auto u = j.find("usage"); u != j.end()) {
      r.usage.prompt_tokens = u->value("prompt_tokens", int64_t{0});
      r.usage.cached_prompt_tokens = u->value("cached_prompt_tokens", int64_t{0});
      r.usage.completion_tokens = u->value("completion_tokens", int64_t{0});
    }
    if (auto calls = j.find("tool_calls"); calls != j.end()) {
      for (const json& c : *calls) {
        ToolCall call;
        call.id = c.value("id", "");
        call.name = c.value("name", "");
        call.arguments = c.value("arguments", "");
        r.tool_calls.push_back(std::move(call));
      }
    }
  } catch (const json::exception& e) {
    return cassette_field_error(where, std::string("\"reply\" has a field of the wrong type (") + e.what() + ")");
  }
  return r;
}

Status cassette_status_from_json(const json& j, const std::string& where, Status& out) {
  if (!j.is_object() || !j.contains("code") || !j["code"].is_string() || !j.contains("message") ||
      !j["message"].is_string()) {
    return cassette_field_error(where, "\"error\" must be an object with string fields code and message");
  }
  const std::string code = j["code"].get<std::string>();
  static constexpr std::array<ErrorCode, 11> kCodes = {
      ErrorCode::kInvalidArgument,   ErrorCode::kNotFound,          ErrorCode::kPermissionDenied,
      ErrorCode::kUnauthenticated,   ErrorCode::kUnavailable,       ErrorCode::kDeadlineExceeded,
      ErrorCode::kCancelled,         ErrorCode::kFailedPrecondition, ErrorCode::kResourceExhausted,
      ErrorCode::kInternal,          ErrorCode::kAborted};
  for (ErrorCode c : kCodes) {
    if (error_code_name(c) == code) {
      out = Status(c, j["message"].get<std::string>());
      return Status::Ok();
    }
  }
  return cassette_field_error(where, "unknown error code \"" + code + "\"");
}

std::optional<std::string> cassette_first_difference(const json& recorded, const json& got) {
  return cassette_diff_at(&recorded, &got, "");
}

}  // namespace keel::detail
