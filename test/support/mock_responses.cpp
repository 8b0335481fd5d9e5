// Builders of scripted MockResponse values: OpenAI-shaped JSON completions, SSE streams and
// failures. See mock_llm_server.hpp.
#include <nlohmann/json.hpp>

#include "support/mock_llm_server.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

std::string model_of(const ModelReply& reply) { return reply.model.empty() ? "mock-model" : reply.model; }

std::string finish_of(const ModelReply& reply) {
  if (!reply.finish_reason.empty()) return reply.finish_reason;
  return reply.tool_calls.empty() ? "stop" : "tool_calls";
}

// Splits on UTF-8 character boundaries into pieces of about `piece_bytes`.
std::vector<std::string> split_utf8(std::string_view text, size_t piece_bytes) {
  std::vector<std::string> out;
  if (piece_bytes == 0) piece_bytes = 1;
  size_t from = 0;
  while (from < text.size()) {
    size_t to = std::min(text.size(), from + piece_bytes);
    while (to < text.size() && (static_cast<unsigned char>(text[to]) & 0xC0) == 0x80) ++to;
    out.emplace_back(text.substr(from, to - from));
    from = to;
  }
  return out;
}

std::string sse(const json& payload) { return "data: " + payload.dump() + "\n\n"; }

json chunk(const ModelReply& reply, json delta, json finish = nullptr) {
  json choice = {{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", std::move(finish)}};
  return {{"id", "chatcmpl-mock"},
          {"object", "chat.completion.chunk"},
          {"created", 1700000000},
          {"model", model_of(reply)},
          {"choices", json::array({std::move(choice)})}};
}

json usage_json(const Usage& usage) {
  return {{"prompt_tokens", usage.prompt_tokens},
          {"completion_tokens", usage.completion_tokens},
          {"total_tokens", usage.prompt_tokens + usage.completion_tokens}};
}

MockResponse streamed(std::vector<std::string> chunks) {
  MockResponse r;
  r.content_type = "text/event-stream";
  r.stream = true;
  r.chunks = std::move(chunks);
  return r;
}

}  // namespace

MockResponse mock_completion(const ModelReply& reply) {
  json message = {{"role", "assistant"}, {"content", reply.text.empty() && !reply.tool_calls.empty()
                                                         ? json(nullptr) : json(reply.text)}};
  if (!reply.reasoning.empty()) message["reasoning_content"] = reply.reasoning;
  if (!reply.tool_calls.empty()) {
    json calls = json::array();
    for (const ToolCall& c : reply.tool_calls) {
      calls.push_back({{"id", c.id}, {"type", "function"},
                       {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
    }
    message["tool_calls"] = std::move(calls);
  }
  json body = {{"id", "chatcmpl-mock"},
               {"object", "chat.completion"},
               {"created", 1700000000},
               {"model", model_of(reply)},
               {"choices", json::array({{{"index", 0}, {"message", std::move(message)},
                                         {"finish_reason", finish_of(reply)}}})},
               {"usage", usage_json(reply.usage)}};
  MockResponse r;
  r.body = body.dump();
  return r;
}

MockResponse mock_text(std::string text) {
  ModelReply reply;
  reply.text = std::move(text);
  reply.usage = {10, 5};
  return mock_completion(reply);
}

MockResponse mock_tool_calls(std::vector<ToolCall> calls, std::string text) {
  ModelReply reply;
  reply.text = std::move(text);
  reply.tool_calls = std::move(calls);
  reply.usage = {10, 5};
  return mock_completion(reply);
}

std::vector<std::string> stream_chunks(const ModelReply& reply, size_t piece_bytes) {
  std::vector<std::string> out;
  out.push_back(sse(chunk(reply, {{"role", "assistant"}, {"content", ""}})));
  for (const std::string& piece : split_utf8(reply.reasoning, piece_bytes)) {
    out.push_back(sse(chunk(reply, {{"reasoning_content", piece}})));
  }
  for (const std::string& piece : split_utf8(reply.text, piece_bytes)) {
    out.push_back(sse(chunk(reply, {{"content", piece}})));
  }
  for (size_t i = 0; i < reply.tool_calls.size(); ++i) {
    const ToolCall& call = reply.tool_calls[i];
    json first = {{"index", i}, {"id", call.id}, {"type", "function"},
                  {"function", {{"name", call.name}, {"arguments", ""}}}};
    out.push_back(sse(chunk(reply, {{"tool_calls", json::array({first})}})));
    for (const std::string& piece : split_utf8(call.arguments, piece_bytes)) {
      json more = {{"index", i}, {"function", {{"arguments", piece}}}};
      out.push_back(sse(chunk(reply, {{"tool_calls", json::array({more})}})));
    }
  }
  out.push_back(sse(chunk(reply, json::object(), finish_of(reply))));
  json usage = {{"id", "chatcmpl-mock"}, {"object", "chat.completion.chunk"}, {"created", 1700000000},
                {"model", model_of(reply)}, {"choices", json::array()}, {"usage", usage_json(reply.usage)}};
  out.push_back(sse(usage));
  out.push_back("data: [DONE]\n\n");
  return out;
}

MockResponse mock_stream(const ModelReply& reply, size_t piece_bytes) {
  return streamed(stream_chunks(reply, piece_bytes));
}

MockResponse mock_truncated_stream(std::string text) {
  ModelReply reply;
  std::vector<std::string> chunks;
  chunks.push_back(sse(chunk(reply, {{"role", "assistant"}, {"content", ""}})));
  for (const std::string& piece : split_utf8(text, 4)) chunks.push_back(sse(chunk(reply, {{"content", piece}})));
  MockResponse r = streamed(std::move(chunks));
  r.truncate = true;
  return r;
}

MockResponse mock_slow_stream(const ModelReply& reply, int64_t chunk_delay_ms) {
  MockResponse r = mock_stream(reply);
  r.chunk_delay_ms = chunk_delay_ms;
  return r;
}

MockResponse mock_sse(std::vector<std::string> raw_chunks) { return streamed(std::move(raw_chunks)); }

MockResponse mock_error(int status, std::string message, HeaderList headers) {
  const char* type = status == 401 ? "invalid_request_error" : status == 429 ? "rate_limit_error" : "server_error";
  json body = {{"error", {{"message", std::move(message)}, {"type", type}, {"param", nullptr},
                          {"code", nullptr}}}};
  return mock_raw(status, body.dump(), "application/json", std::move(headers));
}

MockResponse mock_raw(int status, std::string body, std::string content_type, HeaderList headers) {
  MockResponse r;
  r.status = status;
  r.body = std::move(body);
  r.content_type = std::move(content_type);
  r.headers = std::move(headers);
  return r;
}

MockResponse mock_invalid_json() { return mock_raw(200, "{\"id\": \"chatcmpl-mock\", \"choices\": [ oops"); }

MockResponse mock_drop() {
  MockResponse r;
  r.drop = true;
  return r;
}

MockResponse with_delay(MockResponse response, int64_t delay_ms) {
  response.delay_ms = delay_ms;
  return response;
}

LatestUserRequest latest_user_request(const std::string& request_body) {
  LatestUserRequest out;
  nlohmann::json request = nlohmann::json::parse(request_body, nullptr, false);
  if (!request.is_object() || !request["messages"].is_array()) return out;
  for (const nlohmann::json& m : request["messages"]) {
    const std::string role = m.value("role", "");
    const nlohmann::json& content = m.contains("content") ? m["content"] : nlohmann::json();
    if (role == "user" && content.is_string() && content.get<std::string>().rfind("[keel", 0) != 0) {
      out.task = content.get<std::string>();
      out.tool_answered = false;
    }
    if (role == "tool") out.tool_answered = true;
  }
  return out;
}

MockResponse parse_json_round(const std::string& request_body, int64_t delay_ms) {
  const LatestUserRequest latest = latest_user_request(request_body);
  ModelReply reply;
  if (latest.tool_answered) {
    reply.text = "done:" + latest.task;
  } else {
    reply.tool_calls.push_back({"c_" + latest.task, "parse_json", json{{"text", "[1,2,3]"}, {"path", "$[1]"}}.dump()});
  }
  return with_delay(mock_completion(reply), delay_ms);
}

}  // namespace keel::testing
