// OpenAI wire mapping: request JSON from a ModelRequest, non-streamed reply parsing, error bodies.
#include "llm/openai_wire.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <vector>

namespace keel::detail {
namespace {

using nlohmann::json;

struct Fixture {
  std::vector<Message> history;
  std::vector<ToolSpec> tools;
  ModelRequest request;

  Fixture() {
    history.push_back(Message::system("be brief"));
    history.push_back(Message::user("read README"));
    history.push_back(Message::assistant("", {{"call_1", "read_file", R"({"path":"README.md"})"},
                                              {"call_2", "list_dir", ""}}));
    ToolResult result;
    result.call_id = "call_1";
    result.name = "read_file";
    result.content = "# keel";
    history.push_back(Message::tool(result));
    ToolSpec spec;
    spec.name = "read_file";
    spec.description = "Reads a file.";
    spec.parameters_schema = R"({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]})";
    tools.push_back(spec);
    request.history = history;
    request.tools = tools;
  }

  json build(bool stream = false, std::string_view model = "m1") {
    Result<std::string> body = build_chat_request(request, {model, stream, true});
    EXPECT_TRUE(body.ok()) << body.status().to_string();
    return body.ok() ? json::parse(*body) : json();
  }
};

TEST(OpenAiWireTest, MapsRolesToolCallsAndToolMessages) {
  Fixture f;
  const json body = f.build();
  EXPECT_EQ(body["model"], "m1");
  const json& messages = body["messages"];
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[0], json({{"role", "system"}, {"content", "be brief"}}));
  EXPECT_EQ(messages[1], json({{"role", "user"}, {"content", "read README"}}));
  const json& assistant = messages[2];
  EXPECT_EQ(assistant["role"], "assistant");
  EXPECT_TRUE(assistant["content"].is_null());
  ASSERT_EQ(assistant["tool_calls"].size(), 2u);
  EXPECT_EQ(assistant["tool_calls"][0],
            json::parse(R"({"id":"call_1","type":"function",
                            "function":{"name":"read_file","arguments":"{\"path\":\"README.md\"}"}})"));
  EXPECT_EQ(assistant["tool_calls"][1]["function"]["arguments"], "{}");
  EXPECT_EQ(messages[3], json({{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "# keel"}}));
  EXPECT_FALSE(body.contains("stream"));
}

TEST(OpenAiWireTest, SendsToolsWithParsedSchemas) {
  Fixture f;
  const json body = f.build();
  ASSERT_TRUE(body.contains("tools"));
  ASSERT_EQ(body["tools"].size(), 1u);
  const json& tool = body["tools"][0];
  EXPECT_EQ(tool["type"], "function");
  EXPECT_EQ(tool["function"]["name"], "read_file");
  EXPECT_EQ(tool["function"]["description"], "Reads a file.");
  EXPECT_EQ(tool["function"]["parameters"]["required"], json::array({"path"}));
}

TEST(OpenAiWireTest, OmitsToolsWhenDisabledOrEmpty) {
  Fixture f;
  f.request.tools_enabled = false;
  EXPECT_FALSE(f.build().contains("tools"));
  f.request.tools_enabled = true;
  f.request.tools = {};
  EXPECT_FALSE(f.build().contains("tools"));
}

TEST(OpenAiWireTest, SendsTheToolChoiceAsOpenAiWritesIt) {
  Fixture f;
  EXPECT_FALSE(f.build().contains("tool_choice"));  // unset: the backend's default
  f.request.tool_choice = "required";
  EXPECT_EQ(f.build()["tool_choice"], "required");
  f.request.tool_choice = "none";
  EXPECT_EQ(f.build()["tool_choice"], "none");
  f.request.tool_choice = "read_file";
  EXPECT_EQ(f.build()["tool_choice"], json::parse(R"({"type":"function","function":{"name":"read_file"}})"));
}

TEST(OpenAiWireTest, RejectsAnInvalidSchema) {
  Fixture f;
  f.tools[0].parameters_schema = "{not json";
  Result<std::string> body = build_chat_request(f.request, {"m", false, true});
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(body.status().message().find("read_file"), std::string::npos);
}

TEST(OpenAiWireTest, StreamingSamplingAndAppendedMessages) {
  Fixture f;
  f.request.sampling.temperature = 0.5;
  f.request.sampling.max_tokens = 64;
  f.request.sampling.seed = 7;
  f.request.appended.push_back(Message::user("continue"));
  const json body = f.build(/*stream=*/true, /*model=*/"");
  EXPECT_FALSE(body.contains("model"));
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
  EXPECT_EQ(body["temperature"], 0.5);
  EXPECT_EQ(body["max_tokens"], 64);
  EXPECT_EQ(body["seed"], 7);
  EXPECT_FALSE(body.contains("top_p"));
  EXPECT_EQ(body["messages"].back()["content"], "continue");
}

TEST(OpenAiWireTest, ReplacedHistoryIsSentInstead) {
  Fixture f;
  f.request.replaced_history = std::vector<Message>{Message::user("only this")};
  const json body = f.build();
  ASSERT_EQ(body["messages"].size(), 1u);
  EXPECT_EQ(body["messages"][0]["content"], "only this");
}

TEST(OpenAiWireTest, InvalidUtf8IsReplacedNotFatal) {
  Fixture f;
  f.history[1].content = "bad \xFF byte";
  f.request.history = f.history;
  EXPECT_NE(f.build()["messages"][1]["content"].get<std::string>().find("bad"), std::string::npos);
}

TEST(OpenAiWireTest, ParsesTextReasoningUsageAndToolCalls) {
  const Result<ModelReply> reply = parse_chat_completion(R"({
    "model": "gpt-x",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
      "role": "assistant", "content": null, "reasoning_content": "think",
      "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{\"x\":1}"}},
        {"id": "b", "type": "function", "function": {"name": "g", "arguments": {"y": [2]}}},
        {"id": "c", "type": "function", "function": {"name": "h"}}]}}],
    "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}})");
  ASSERT_TRUE(reply.ok()) << reply.status().to_string();
  EXPECT_EQ(reply->model, "gpt-x");
  EXPECT_EQ(reply->text, "");
  EXPECT_EQ(reply->reasoning, "think");
  EXPECT_EQ(reply->finish_reason, "tool_calls");
  EXPECT_EQ(reply->usage.prompt_tokens, 12);
  EXPECT_EQ(reply->usage.completion_tokens, 3);
  ASSERT_EQ(reply->tool_calls.size(), 3u);
  EXPECT_EQ(reply->tool_calls[0].arguments, R"({"x":1})");
  EXPECT_EQ(json::parse(reply->tool_calls[1].arguments), json::parse(R"({"y":[2]})"));
  EXPECT_EQ(reply->tool_calls[2].arguments, "{}");
}

TEST(OpenAiWireTest, ReasoningFieldAlternative) {
  const Result<ModelReply> reply =
      parse_chat_completion(R"({"choices":[{"message":{"content":"hi","reasoning":"r"},"finish_reason":"stop"}]})");
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->text, "hi");
  EXPECT_EQ(reply->reasoning, "r");
}

TEST(OpenAiWireTest, BrokenBodiesAreUnavailable) {
  for (const char* body : {"not json", "", R"({"choices":[]})", R"([1,2])", R"({"error":{"message":"boom"}})"}) {
    const Result<ModelReply> reply = parse_chat_completion(body);
    ASSERT_FALSE(reply.ok()) << body;
    EXPECT_EQ(reply.status().code(), ErrorCode::kUnavailable) << body;
  }
  EXPECT_NE(parse_chat_completion("not json").status().message().find("invalid JSON from server"), std::string::npos);
  EXPECT_NE(parse_chat_completion(R"({"error":{"message":"boom"}})").status().message().find("boom"),
            std::string::npos);
}

TEST(OpenAiWireTest, ServerErrorMessages) {
  EXPECT_EQ(server_error_message(R"({"error":{"message":"Incorrect API key","type":"x"}})"), "Incorrect API key");
  EXPECT_EQ(server_error_message(R"({"error":"plain"})"), "plain");
  EXPECT_EQ(server_error_message("<html>bad gateway</html>"), "<html>bad gateway</html>");
  EXPECT_EQ(server_error_message(""), "(empty body)");
  const std::string long_body(2000, 'z');
  EXPECT_LE(server_error_message(long_body).size(), 510u);
}

TEST(OpenAiWireTest, HttpStatusMapping) {
  EXPECT_EQ(http_error_status(400, "m", "u").code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(http_error_status(401, "m", "u").code(), ErrorCode::kUnauthenticated);
  EXPECT_EQ(http_error_status(403, "m", "u").code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(http_error_status(404, "m", "u").code(), ErrorCode::kNotFound);
  EXPECT_EQ(http_error_status(422, "m", "u").code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(http_error_status(429, "m", "u").code(), ErrorCode::kUnavailable);
  EXPECT_EQ(http_error_status(503, "m", "u").code(), ErrorCode::kUnavailable);
  EXPECT_EQ(http_error_status(500, "boom", "u").message(), "HTTP 500: boom");
}

// Rendering with what the previous request kept gives the same bytes as rendering all of it,
// whatever changed between requests: a round added, an earlier message replaced (a compacted
// history), messages dropped, a call's arguments changed, the tools changed, nothing at all.
TEST(RenderCacheTest, GivesTheSameBodyAsRenderingEverything) {
  Fixture f;
  RenderCache rendered;
  std::vector<ToolSpec> tools = f.tools;
  auto check = [&](const std::vector<Message>& history, const std::vector<Message>& appended, const char* step) {
    ModelRequest r;
    r.history = history;
    r.appended = appended;
    r.tools = tools;
    Result<std::string> plain = build_chat_request(r, {"m", false, true});
    Result<std::string> kept = build_chat_request(r, {"m", false, true}, &rendered);
    ASSERT_TRUE(plain.ok() && kept.ok()) << step;
    EXPECT_EQ(*kept, *plain) << step;
  };
  std::vector<Message> h = f.history;
  check(h, {}, "first");
  check(h, {}, "same again");
  h.push_back(Message::assistant("done \"quoted\" \u00e9"));
  check(h, {Message::user("appended")}, "a round added, one appended");
  check(h, {}, "the appended one gone");
  h[1].content = "read README, please";
  check(h, {}, "an early message changed");
  h[2].tool_calls[0].arguments = R"({"path":"NOTES.md"})";
  check(h, {}, "arguments changed");
  h.resize(2);
  check(h, {}, "messages dropped");
  check({}, {}, "nothing");
  check(h, {}, "back again");
  tools[0].description = "Reads a file, whole.";
  check(h, {}, "a tool's description changed");
  tools.push_back(tools[0]);
  tools.back().name = "read_file_2";
  check(h, {}, "a tool added");
  // A schema that is not an object is refused every time, cached or not.
  tools.back().parameters_schema = "[1]";
  ModelRequest bad;
  bad.history = h;
  bad.tools = tools;
  EXPECT_EQ(build_chat_request(bad, {"m", false, true}, &rendered).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(build_chat_request(bad, {"m", false, true}, &rendered).status().code(), ErrorCode::kInvalidArgument);
  tools.pop_back();
  check(h, {}, "the bad tool gone");
}

}  // namespace
}  // namespace keel::detail
