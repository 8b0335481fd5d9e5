// Test fixture for the /v1/messages endpoint: an HttpServer on 127.0.0.1 with the access guard
// and mount_anthropic_endpoint, a TestAgentFactory (profiles "default" and "fast", keel's own
// tools such as fs_list) on a MockLlmServer, an in-memory store, a worker pool, and helpers to
// post requests and read the Messages API's Server-Sent Events.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/anthropic_endpoint.hpp"
#include "api/openai_endpoint_fixture.hpp"  // call(), reply()

namespace keel::testing {

// The names of `events`, in order.
inline std::vector<std::string> event_names(const std::vector<NamedEvent>& events) {
  std::vector<std::string> names;
  for (const NamedEvent& e : events) names.push_back(e.name);
  return names;
}

// The text of every text_delta in `events`, joined.
inline std::string streamed_text(const std::vector<NamedEvent>& events) {
  std::string text;
  for (const NamedEvent& e : events) {
    if (e.name == "content_block_delta" && e.data["delta"]["type"] == "text_delta") text += e.data["delta"]["text"];
  }
  return text;
}

// The server, store, mock model and agent factory of the OpenAI endpoint's fixture, with
// /v1/messages mounted instead.
class AnthropicEndpointFixture : public OpenAiEndpointFixture {
 protected:
  void mount(const api::ApiAccess& access) override {
    ASSERT_TRUE(api::mount_anthropic_endpoint(*http_, *factory_, *workers_, access).ok());
  }

  // POST /v1/messages with `body` (sent as is) and `extra` header lines.
  std::optional<RawHttpResponse> post(std::string_view body, std::string_view extra = "") {
    std::string headers = "Content-Type: application/json\r\nanthropic-version: 2023-06-01\r\n";
    headers.append(extra);
    return raw_http(http_->port(), "POST", "/v1/messages", headers, body, 20000);
  }
  std::optional<RawHttpResponse> post(const char* body, std::string_view extra = "") {
    return post(std::string_view(body), extra);
  }
  std::optional<RawHttpResponse> post(const nlohmann::json& body, std::string_view extra = "") {
    return post(std::string_view(body.dump()), extra);
  }

  // A request for profile "default" with one user message.
  static nlohmann::json ask(std::string text, bool stream = false) {
    nlohmann::json body = {{"model", "default"},
                           {"max_tokens", 1024},
                           {"messages", nlohmann::json::array({{{"role", "user"}, {"content", std::move(text)}}})}};
    if (stream) body["stream"] = true;
    return body;
  }

  // The client's weather tool, as an Anthropic client sends it.
  static nlohmann::json weather_tool() {
    return nlohmann::json::parse(R"({"name":"get_weather","description":"The weather in a city now.",
        "input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}})");
  }

  // The mock model's `index`-th request body (null when there is none).
  nlohmann::json model_request(size_t index) {
    std::vector<std::string> bodies = mock_.request_bodies();
    if (index >= bodies.size()) return nlohmann::json();
    return nlohmann::json::parse(bodies[index]);
  }

  // The tool names offered in the mock model's `index`-th request.
  std::vector<std::string> model_tool_names(size_t index) {
    std::vector<std::string> names;
    nlohmann::json body = model_request(index);
    if (!body.is_object() || !body.contains("tools")) return names;
    for (const nlohmann::json& t : body["tools"]) names.push_back(t["function"]["name"]);
    return names;
  }

  // The tool messages of the mock's `index`-th request.
  std::vector<nlohmann::json> model_tool_messages(size_t index) {
    std::vector<nlohmann::json> out;
    nlohmann::json body = model_request(index);
    if (!body.is_object()) return out;
    for (const nlohmann::json& m : body["messages"]) {
      if (m.value("role", "") == "tool") out.push_back(m);
    }
    return out;
  }
};

}  // namespace keel::testing
