// Shared helpers of the Anthropic backend tests: client options tuned for a fast suite pointing at
// a MockLlmServer, and builders of Messages API replies (JSON bodies and SSE events).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "keel/anthropic_client.hpp"
#include "support/mock_llm_server.hpp"

namespace keel::testing {

inline AnthropicOptions anthropic_fast_options(const MockLlmServer& server) {
  AnthropicOptions o;
  o.base_url = server.base_url() + "/";  // ".../v1/": "/messages" is appended, the slash stripped
  o.api_key = "sk-ant-test";
  o.model = "claude-test";
  o.connect_timeout_ms = 2000;
  o.request_timeout_ms = 5000;
  o.stream_idle_timeout_ms = 2000;
  o.retry.initial_delay_ms = 10;
  o.retry.max_delay_ms = 2000;
  return o;
}

// A non-streamed "message" body with `content` blocks.
inline MockResponse anthropic_message(nlohmann::json content, std::string stop_reason = "end_turn",
                                      int input_tokens = 12, int output_tokens = 4) {
  nlohmann::json body = {{"id", "msg_1"},
                         {"type", "message"},
                         {"role", "assistant"},
                         {"model", "claude-test"},
                         {"content", std::move(content)},
                         {"stop_reason", std::move(stop_reason)},
                         {"stop_sequence", nullptr},
                         {"usage", {{"input_tokens", input_tokens}, {"output_tokens", output_tokens}}}};
  return mock_raw(200, body.dump());
}

// One SSE event: "event: <type>\ndata: <payload with type>\n\n".
inline std::string sse_event(const std::string& type, nlohmann::json payload = nlohmann::json::object()) {
  payload["type"] = type;
  std::string out = "event: ";
  out += type;
  out += "\ndata: ";
  out += payload.dump();
  out += "\n\n";
  return out;
}

inline std::string message_start_event(int input_tokens = 25) {
  return sse_event("message_start", {{"message",
                                      {{"id", "msg_1"},
                                       {"type", "message"},
                                       {"role", "assistant"},
                                       {"model", "claude-test"},
                                       {"content", nlohmann::json::array()},
                                       {"stop_reason", nullptr},
                                       {"usage", {{"input_tokens", input_tokens}, {"output_tokens", 1}}}}}});
}

inline std::string text_start_event(int index) {
  return sse_event("content_block_start", {{"index", index}, {"content_block", {{"type", "text"}, {"text", ""}}}});
}

inline std::string text_delta_event(int index, const std::string& text) {
  return sse_event("content_block_delta", {{"index", index}, {"delta", {{"type", "text_delta"}, {"text", text}}}});
}

inline std::string block_stop_event(int index) { return sse_event("content_block_stop", {{"index", index}}); }

inline std::string tool_start_event(int index, const std::string& id, const std::string& name) {
  return sse_event("content_block_start",
                   {{"index", index},
                    {"content_block",
                     {{"type", "tool_use"}, {"id", id}, {"name", name}, {"input", nlohmann::json::object()}}}});
}

inline std::string json_delta_event(int index, const std::string& piece) {
  return sse_event("content_block_delta",
                   {{"index", index}, {"delta", {{"type", "input_json_delta"}, {"partial_json", piece}}}});
}

inline std::string message_delta_event(const std::string& stop_reason, int output_tokens) {
  return sse_event("message_delta", {{"delta", {{"stop_reason", stop_reason}, {"stop_sequence", nullptr}}},
                                     {"usage", {{"output_tokens", output_tokens}}}});
}

inline std::string message_stop_event() { return sse_event("message_stop"); }

// A whole streamed text answer, one text_delta per piece.
inline MockResponse anthropic_text_stream(const std::vector<std::string>& pieces) {
  std::vector<std::string> chunks = {message_start_event(), text_start_event(0)};
  for (const std::string& piece : pieces) chunks.push_back(text_delta_event(0, piece));
  chunks.push_back(block_stop_event(0));
  chunks.push_back(message_delta_event("end_turn", 7));
  chunks.push_back(message_stop_event());
  return mock_sse(std::move(chunks));
}

// A whole streamed tool_use answer whose input arrives in `pieces`.
inline MockResponse anthropic_tool_stream(const std::string& id, const std::string& name,
                                          const std::vector<std::string>& pieces) {
  std::vector<std::string> chunks = {message_start_event(), tool_start_event(0, id, name)};
  for (const std::string& piece : pieces) chunks.push_back(json_delta_event(0, piece));
  chunks.push_back(block_stop_event(0));
  chunks.push_back(message_delta_event("tool_use", 9));
  chunks.push_back(message_stop_event());
  return mock_sse(std::move(chunks));
}

}  // namespace keel::testing
