// The /v1/messages endpoint's refusals and failures: Anthropic's error shape with the field
// named, the HTTP statuses, x-should-retry: false, x-api-key at the access guard, and failed runs
// answered with 400 (whole) or an error event (streamed).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "api/anthropic_endpoint_fixture.hpp"

namespace keel::testing {
namespace anthropic_endpoint_errors_test {

using nlohmann::json;

class AnthropicEndpointErrorsTest : public AnthropicEndpointFixture {
 protected:
  // Posts `body`, expects `status` and an Anthropic error of `type` whose message starts with
  // `prefix`, with x-should-retry: false for api_error only; returns the message.
  std::string expect_error(const json& body, int status, const std::string& type, const std::string& prefix,
                           std::string_view extra = "") {
    auto r = post(body, extra);
    if (!r) {
      ADD_FAILURE() << "no answer";
      return "";
    }
    EXPECT_EQ(r->status, status) << r->body;
    EXPECT_EQ(r->header("x-should-retry"), type == "api_error" ? "false" : "") << type;
    json parsed = json::parse(r->body, nullptr, false);
    EXPECT_EQ(parsed["type"], "error") << r->body;
    EXPECT_EQ(parsed["error"]["type"], type) << r->body;
    const std::string message = parsed["error"].value("message", "");
    EXPECT_EQ(message.rfind(prefix, 0), 0u) << message;
    return message;
  }
};

TEST_F(AnthropicEndpointErrorsTest, BadFieldsAre400InvalidRequestNamingTheField) {
  start();
  json missing_max = ask("hi");
  missing_max.erase("max_tokens");
  expect_error(missing_max, 400, "invalid_request_error", "max_tokens:");

  json image = ask("hi");
  image["messages"][0]["content"] = json::parse(R"([{"type":"text","text":"what is this?"},
      {"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}])");
  std::string m = expect_error(image, 400, "invalid_request_error", "messages.0.content.1.type:");
  EXPECT_NE(m.find("image"), std::string::npos) << m;

  json thinking = ask("hi");
  thinking["messages"] = json::parse(R"([{"role":"user","content":"hi"},
      {"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"x"},{"type":"text","text":"Hello"}]},
      {"role":"user","content":"again"}])");
  m = expect_error(thinking, 400, "invalid_request_error", "messages.1.content.0.type:");
  EXPECT_NE(m.find("thinking"), std::string::npos) << m;

  json document = ask("hi");
  document["messages"][0]["content"] = json::parse(R"([{"type":"document","source":{"type":"text","media_type":"text/plain","data":"x"}}])");
  expect_error(document, 400, "invalid_request_error", "messages.0.content.0.type:");

  json temperature = ask("hi");
  temperature["temperature"] = "hot";
  expect_error(temperature, 400, "invalid_request_error", "temperature:");

  json choice = ask("hi");
  choice["tools"] = json::array({weather_tool()});
  choice["tool_choice"] = {{"type", "tool"}, {"name", "get_time"}};
  expect_error(choice, 400, "invalid_request_error", "tool_choice.name:");

  json server_tool = ask("hi");
  server_tool["tools"] = json::parse(R"([{"type":"web_search_20250305","name":"web_search"}])");
  expect_error(server_tool, 400, "invalid_request_error", "tools.0.type:");

  json prefill = ask("hi");
  prefill["messages"].push_back({{"role", "assistant"}, {"content", "Sure,"}});
  expect_error(prefill, 400, "invalid_request_error", "messages.1.role:");

  json unanswered = ask("hi");
  unanswered["messages"] = json::parse(R"([{"role":"user","content":"weather?"},
      {"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Oslo"}}]},
      {"role":"user","content":"never mind"}])");
  expect_error(unanswered, 400, "invalid_request_error", "messages.2.content:");

  json stray = ask("hi");
  stray["messages"][0]["content"] = json::parse(R"([{"type":"tool_result","tool_use_id":"toolu_9","content":"x"}])");
  expect_error(stray, 400, "invalid_request_error", "messages.0.content.0.tool_use_id:");

  auto r = post("{not json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(json::parse(r->body)["error"]["type"], "invalid_request_error");
  EXPECT_EQ(mock_.request_count(), 0u) << "nothing reached the model";
}

TEST_F(AnthropicEndpointErrorsTest, AClientToolNamedLikeAnOwnToolIsRefused) {
  start();
  json clash = ask("hi");
  clash["tools"] = json::array({{{"name", "fs_list"}, {"input_schema", {{"type", "object"}}}}});
  std::string m = expect_error(clash, 400, "invalid_request_error", "tools:");
  EXPECT_NE(m.find("fs_list"), std::string::npos) << m;
  EXPECT_EQ(mock_.request_count(), 0u);
}

TEST_F(AnthropicEndpointErrorsTest, AnUnknownModelIs404NotFound) {
  start();
  json body = ask("hi");
  body["model"] = "claude-sonnet-4-5";
  std::string m = expect_error(body, 404, "not_found_error", "model:");
  EXPECT_NE(m.find("default, fast"), std::string::npos) << m;
}

TEST_F(AnthropicEndpointErrorsTest, TheTokenMayComeAsXApiKey) {
  api::ApiAccess access;
  access.token = "sekrit";
  start(access);
  mock_.set_responder([](const std::string&) { return mock_text("Hi."); });
  auto r = post(ask("hi"), "x-api-key: sekrit\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  r = post(ask("hi"), "Authorization: Bearer sekrit\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;

  r = post(ask("hi"), "x-api-key: wrong\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  json body = json::parse(r->body);
  EXPECT_EQ(body["type"], "error") << r->body;
  EXPECT_EQ(body["error"]["type"], "authentication_error") << r->body;
  r = post(ask("hi"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_NE(json::parse(r->body)["error"]["message"].get<std::string>().find("x-api-key"), std::string::npos) << r->body;
  // Other paths keep keel's own shape, and the Host check still applies.
  auto other = raw_http(http_->port(), "GET", "/v1/models", "x-api-key: wrong\r\n");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 401);
  EXPECT_EQ(json::parse(other->body)["error"]["code"], "unauthorized") << other->body;
  auto foreign = raw_http_exact(http_->port(),
                                "POST /v1/messages HTTP/1.1\r\nHost: evil.example\r\nx-api-key: sekrit\r\n"
                                "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
  ASSERT_TRUE(foreign);
  EXPECT_EQ(foreign->status, 403);
  EXPECT_EQ(json::parse(foreign->body)["error"]["type"], "permission_error") << foreign->body;
}

TEST_F(AnthropicEndpointErrorsTest, AFailedRunIs400ApiErrorThatClientsDoNotRetry) {
  start();
  mock_.push(mock_error(400, "the backend refused the request"));
  std::string m = expect_error(ask("hi"), 400, "api_error", "");
  EXPECT_NE(m.find("refused"), std::string::npos) << m;
  EXPECT_EQ(mock_.request_count(), 1u);
}

TEST_F(AnthropicEndpointErrorsTest, ARetryWithTheSameIdempotencyKeyGetsTheFirstAnswer) {
  start();
  mock_.push(mock_error(400, "the backend refused the request"));
  const std::string body = ask("hi").dump();
  auto first = post(std::string_view(body), "Idempotency-Key: m-1\r\n");
  auto again = post(std::string_view(body), "Idempotency-Key: m-1\r\n");
  ASSERT_TRUE(first && again);
  EXPECT_EQ(first->status, 400);
  EXPECT_EQ(again->body, first->body);
  EXPECT_EQ(again->header("idempotent-replayed"), "true");
  EXPECT_EQ(mock_.request_count(), 1u);
}

TEST_F(AnthropicEndpointErrorsTest, AStreamedRunThatFailsEndsWithAnErrorEvent) {
  start();
  mock_.push(mock_error(400, "the backend refused the request"));
  auto r = post(ask("hi", true));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  std::vector<NamedEvent> events = parse_named_events(r->body);
  ASSERT_EQ(event_names(events), (std::vector<std::string>{"message_start", "error"})) << r->body;
  EXPECT_EQ(events[1].data["type"], "error");
  EXPECT_EQ(events[1].data["error"]["type"], "api_error");
  EXPECT_NE(events[1].data["error"]["message"].get<std::string>().find("refused"), std::string::npos);
}

TEST_F(AnthropicEndpointErrorsTest, ApprovalsAreDeniedOverV1) {
  ApprovalPolicy confirm_everything;
  confirm_everything.override_mode = ApprovalMode::kConfirm;
  confirm_everything.override_source = "test";
  start({}, confirm_everything);
  mock_.push(mock_completion(reply("", {call("call_1", "fs_list", R"({"path":"."})")})));
  mock_.push(mock_completion(reply("I could not look.")));
  auto r = post(ask("What is in the folder?"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  std::vector<json> results = model_tool_messages(1);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NE(results[0]["content"].get<std::string>().find("/v1/messages"), std::string::npos) << results[0].dump();
}

}  // namespace anthropic_endpoint_errors_test
}  // namespace keel::testing
