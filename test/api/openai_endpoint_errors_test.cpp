// Requests the OpenAI-compatible endpoint refuses, with OpenAI-shaped errors naming the field,
// and its token check. None of them reaches the model.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/openai_endpoint_fixture.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

class OpenAiEndpointErrorsTest : public OpenAiEndpointFixture {};

// `body` with each USER replaced by a user message.
std::string with_user(std::string body) {
  const std::string_view user = R"({"role":"user","content":"hi"})";
  for (size_t at = body.find("USER"); at != std::string::npos; at = body.find("USER", at + user.size())) {
    body.replace(at, 4, user);
  }
  return body;
}

struct Refusal {
  const char* what;
  std::string body;
  int status;
  const char* code;
  json param;
};

TEST_F(OpenAiEndpointErrorsTest, BadRequestsGetOpenAiErrorsNamingTheField) {
  start();
  const std::vector<Refusal> cases = {
      {"malformed JSON", R"({"model":"default","messages":[)", 400, "invalid_json", nullptr},
      {"not an object", R"([1,2])", 400, "invalid_type", "body"},
      {"no model", R"({"messages":[USER]})", 400, "missing_required_parameter", "model"},
      {"model not a string", R"({"model":7,"messages":[USER]})", 400, "invalid_type", "model"},
      {"no messages", R"({"model":"default"})", 400, "missing_required_parameter", "messages"},
      {"empty messages", R"({"model":"default","messages":[]})", 400, "invalid_value", "messages"},
      {"last message not the user's",
       R"({"model":"default","messages":[USER,{"role":"assistant","content":"hello"}]})", 400,
       "invalid_value", "messages"},
      {"only a system message", R"({"model":"default","messages":[{"role":"system","content":"be nice"}]})", 400,
       "invalid_value", "messages"},
      {"a hosted tool type", R"({"model":"default","messages":[USER],"tools":[{"type":"web_search"}]})", 400,
       "unsupported_value", "tools[0].type"},
      {"a tool without a name", R"({"model":"default","messages":[USER],"tools":[{"type":"function","function":{}}]})",
       400, "missing_required_parameter", "tools[0].function.name"},
      {"deprecated functions", R"({"model":"default","messages":[USER],"functions":[{"name":"f"}]})", 400,
       "unsupported_parameter", "functions"},
      {"tool_choice required without tools", R"({"model":"default","messages":[USER],"tool_choice":"required"})", 400,
       "invalid_value", "tool_choice"},
      {"tool_choice naming an unknown tool",
       R"({"model":"default","messages":[USER],"tools":[{"type":"function","function":{"name":"a"}}],
           "tool_choice":{"type":"function","function":{"name":"b"}}})",
       400, "invalid_value", "tool_choice"},
      {"an image part",
       R"({"model":"default","messages":[{"role":"user","content":[{"type":"text","text":"look"},
           {"type":"image_url","image_url":{"url":"http://x/y.png"}}]}]})",
       400, "unsupported_value", "messages[0].content[1].type"},
      {"unknown role", R"({"model":"default","messages":[{"role":"robot","content":"hi"}]})", 400, "invalid_value",
       "messages[0].role"},
      {"tool message answering no call",
       R"({"model":"default","messages":[USER,{"role":"tool","tool_call_id":"call_9","content":"x"},USER]})",
       400, "invalid_value", "messages[1].tool_call_id"},
      {"tool call left unanswered",
       R"({"model":"default","messages":[USER,{"role":"assistant","tool_calls":[
           {"id":"c1","type":"function","function":{"name":"fs_list","arguments":"{}"}}]},USER]})",
       400, "invalid_value", "messages[2]"},
      {"stream not a boolean", R"({"model":"default","stream":"yes","messages":[USER]})", 400,
       "invalid_type", "stream"},
      {"several choices", R"({"model":"default","n":2,"messages":[USER]})", 400, "unsupported_value", "n"},
      {"json_schema without its object", R"({"model":"default","response_format":{"type":"json_schema"},"messages":[USER]})",
       400, "missing_required_parameter", "response_format.json_schema"},
      {"an unknown response format", R"({"model":"default","response_format":{"type":"yaml"},"messages":[USER]})", 400,
       "unsupported_value", "response_format.type"},
      {"unknown model", R"({"model":"gpt-4o","messages":[USER]})", 404, "model_not_found", "model"},
  };
  for (const Refusal& c : cases) {
    SCOPED_TRACE(c.what);
    auto r = post(std::string_view(with_user(c.body)));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, c.status) << r->body;
    json error = json::parse(r->body)["error"];
    EXPECT_EQ(error["type"], "invalid_request_error") << r->body;
    EXPECT_EQ(error["code"], c.code) << r->body;
    EXPECT_EQ(error["param"], c.param) << r->body;
    EXPECT_FALSE(error["message"].get<std::string>().empty());
  }
  EXPECT_EQ(mock_.request_count(), 0u);
}

TEST_F(OpenAiEndpointErrorsTest, MessagesSayWhatToDo) {
  start();
  auto r = post(R"({"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]})");
  ASSERT_TRUE(r);
  EXPECT_EQ(json::parse(r->body), json::parse(R"J({"error":{
      "message":"The model 'gpt-4o' does not exist: it names no keel profile. Profiles here: default, fast (GET /v1/models lists them)",
      "type":"invalid_request_error","param":"model","code":"model_not_found"}})J"));

  // A client tool may not take the name of one of the profile's own tools.
  r = post(R"({"model":"default","messages":[{"role":"user","content":"hi"}],
               "tools":[{"type":"function","function":{"name":"fs_list"}}]})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  EXPECT_EQ(json::parse(r->body)["error"]["param"], "tools");
  const std::string message = json::parse(r->body)["error"]["message"];
  EXPECT_NE(message.find("'fs_list'"), std::string::npos) << message;
  EXPECT_EQ(mock_.request_count(), 0u);
}

TEST_F(OpenAiEndpointErrorsTest, EmptyToolListsAndNoneChoicesAreAccepted) {
  start();
  mock_.push(mock_text("fine"));
  auto r = post(R"({"model":"default","messages":[{"role":"developer","content":"terse"},{"role":"user","content":"hi"}],
                    "tools":[],"tool_choice":"none","parallel_tool_calls":false,"stream":false,
                    "stream_options":null,"logprobs":false,"metadata":{"a":"b"}})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(json::parse(r->body)["choices"][0]["message"]["content"], "fine");
}

TEST_F(OpenAiEndpointErrorsTest, TheTokenIsChecked) {
  api::ApiAccess access;
  access.token = "s3cret";
  start(access);
  auto r = raw_http(http_->port(), "GET", "/v1/models");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(json::parse(r->body)["error"]["code"], "unauthorized");

  r = raw_http(http_->port(), "GET", "/v1/models", "Authorization: Bearer wrong\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(json::parse(r->body)["error"]["code"], "unauthorized");

  r = post(ask("hi"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  r = post(ask("hi"), "Authorization: Bearer nope\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(mock_.request_count(), 0u);

  r = raw_http(http_->port(), "GET", "/v1/models", "Authorization: Bearer s3cret\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  mock_.push(mock_text("welcome"));
  r = post(ask("hi"), "Authorization: Bearer s3cret\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
}

TEST_F(OpenAiEndpointErrorsTest, MountingAfterStartIsRefused) {
  start();
  api::ApiAccess access;
  Status late = api::mount_openai_endpoint(*http_, *factory_, *workers_, access);
  EXPECT_EQ(late.code(), ErrorCode::kFailedPrecondition);
}

}  // namespace
}  // namespace keel::testing
