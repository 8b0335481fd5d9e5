// Test fixture for the Responses endpoint: the chat endpoint's fixture (mock model, profiles
// "default" and "fast", in-memory store, workers) with /v1/responses mounted instead, and helpers
// to post requests and read its event streams.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/openai_endpoint_fixture.hpp"
#include "api/responses_endpoint.hpp"

namespace keel::testing {

// The client's function tool the tests offer.
inline const nlohmann::json kWeatherTool = nlohmann::json::parse(R"({"type":"function","name":"get_weather",
    "description":"The weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},
    "required":["city"]},"strict":true})");

inline nlohmann::json with_weather(nlohmann::json request) {
  request["tools"] = nlohmann::json::array({kWeatherTool});
  return request;
}

// The user, assistant and tool messages the mock model got in its `index`-th request.
inline std::vector<nlohmann::json> conversation_seen(const std::vector<std::string>& bodies, size_t index) {
  std::vector<nlohmann::json> out;
  if (index >= bodies.size()) return out;
  const nlohmann::json request = nlohmann::json::parse(bodies[index]);
  for (const nlohmann::json& m : request.at("messages")) {
    if (m["role"] != "system") out.push_back(m);
  }
  return out;
}

class ResponsesEndpointFixture : public OpenAiEndpointFixture {
 protected:
  // Starts /v1/responses (and /v1/chat/completions) with `access` and the profiles' `policy`.
  void start_responses(api::ApiAccess access = {}, ApprovalPolicy policy = {}) { start(std::move(access), std::move(policy)); }
  void mount(const api::ApiAccess& access) override {
    OpenAiEndpointFixture::mount(access);
    ASSERT_TRUE(api::mount_responses_endpoint(*http_, *factory_, *workers_, *store_, access, endpoint_options()).ok());
  }

  // POST /v1/responses with `body`.
  std::optional<RawHttpResponse> create(const nlohmann::json& body) {
    return raw_http(http_->port(), "POST", "/v1/responses", "Content-Type: application/json\r\n", body.dump(), 20000);
  }
  std::optional<RawHttpResponse> create_raw(std::string_view body) {
    return raw_http(http_->port(), "POST", "/v1/responses", "Content-Type: application/json\r\n", body, 20000);
  }
  // `method` on /v1/responses/`rest`.
  std::optional<RawHttpResponse> on_response(std::string_view method, const std::string& rest) {
    return raw_http(http_->port(), method, "/v1/responses/" + rest, "", "", 20000);
  }

  // A request for profile "default" with `input`.
  static nlohmann::json task(nlohmann::json input, bool stream = false) {
    nlohmann::json body = {{"model", "default"}, {"input", std::move(input)}};
    if (stream) body["stream"] = true;
    return body;
  }
};

}  // namespace keel::testing
