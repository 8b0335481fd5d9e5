// The AG-UI request reader and turn rules (agui_request.hpp) and the event shapes and call ids
// (agui_events.hpp), without a server.
#include "api/agui_request.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "api/agui_events.hpp"

namespace keel::api {
namespace {

using nlohmann::json;

AguiRequest agui_parsed_ok(const json& body) {
  std::variant<AguiRequest, AguiError> r = parse_agui_request(body.dump());
  if (const auto* e = std::get_if<AguiError>(&r)) ADD_FAILURE() << e->code << ": " << e->message;
  return std::holds_alternative<AguiRequest>(r) ? std::get<AguiRequest>(r) : AguiRequest{};
}

ToolCall agui_test_call(std::string id, std::string name) {
  ToolCall c;
  c.id = std::move(id);
  c.name = std::move(name);
  c.arguments = "{}";
  return c;
}

TEST(AguiRequestTest, ReadsARunAgentInput) {
  const AguiRequest r = agui_parsed_ok(json::parse(R"({
    "threadId": "t1", "runId": "r1", "state": {"a": 1},
    "messages": [
      {"id": "s", "role": "system", "content": "be nice"},
      {"id": "u1", "role": "user", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]},
      {"id": "a1", "role": "assistant", "toolCalls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"x\":1}"}}]},
      {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "done"},
      {"id": "x", "role": "activity", "activityType": "plan", "content": {}}
    ],
    "tools": [{"name": "f", "description": "does f", "parameters": {"type": "object"}}],
    "context": [{"description": "city", "value": "Lyon"}, {"description": "day", "value": "Monday"}],
    "forwardedProps": {"profile": "fast"}
  })"));
  EXPECT_EQ(r.thread_id, "t1");
  EXPECT_EQ(r.run_id, "r1");
  EXPECT_EQ(r.profile, "fast");
  EXPECT_EQ(r.state, json::parse(R"({"a":1})"));
  ASSERT_EQ(r.messages.size(), 3u);
  EXPECT_EQ(r.messages[0].content, "one\ntwo");
  ASSERT_EQ(r.messages[1].tool_calls.size(), 1u);
  EXPECT_EQ(r.messages[1].tool_calls[0].arguments, R"({"x":1})");
  EXPECT_EQ(r.messages[2].tool_call_id, "c1");
  ASSERT_EQ(r.client_tools.size(), 1u);
  EXPECT_TRUE(r.client_tools[0].client_side);
  EXPECT_EQ(json::parse(r.client_tools[0].parameters_schema), json::parse(R"({"type":"object"})"));
  EXPECT_EQ(r.context, "city: Lyon\nday: Monday");
}

TEST(AguiRequestTest, ErrorsNameTheField) {
  auto code = [](std::string_view body) {
    std::variant<AguiRequest, AguiError> r = parse_agui_request(body);
    return std::holds_alternative<AguiError>(r) ? std::get<AguiError>(r).code + " " + std::get<AguiError>(r).message
                                                : std::string("ok");
  };
  EXPECT_EQ(code("[1]").rfind("invalid_type 'body'", 0), 0u) << code("[1]");
  EXPECT_NE(code(R"({"runId":"r","messages":[]})").find("'threadId'"), std::string::npos);
  EXPECT_NE(code(R"({"threadId":"","runId":"r","messages":[]})").find("non-empty string"), std::string::npos);
  EXPECT_NE(code(R"({"threadId":"t","runId":"r","messages":{}})").find("'messages' must be an array"),
            std::string::npos);
  EXPECT_NE(code(R"({"threadId":"t","runId":"r","messages":[{"role":"tool","content":"x"}]})").find("toolCallId"),
            std::string::npos);
  EXPECT_NE(code(R"({"threadId":"t","runId":"r","messages":[],"context":"x"})").find("'context'"), std::string::npos);
  EXPECT_EQ(code(R"({"threadId":"t","runId":"r","messages":[]})"), "ok");
}

TEST(AguiRequestTest, ANewThreadRunsItsLastUserMessageAfterTheAnsweredHistory) {
  std::vector<Message> messages = {Message::user("first"),
                                   Message::assistant("", {agui_test_call("c1", "f"), agui_test_call("c2", "g")}),
                                   Message{Role::kTool, "r1", {}, "c1", {}, {}, {}},
                                   Message{Role::kTool, "stray", {}, "c9", {}, {}, {}}, Message::user("second")};
  std::variant<AguiTurn, AguiError> t = new_thread_turn(messages);
  ASSERT_TRUE(std::holds_alternative<AguiTurn>(t));
  const AguiTurn& turn = std::get<AguiTurn>(t);
  EXPECT_EQ(turn.task, "second");
  ASSERT_EQ(turn.earlier.size(), 3u);
  ASSERT_EQ(turn.earlier[1].tool_calls.size(), 1u) << "c2 was never answered";
  EXPECT_EQ(turn.earlier[1].tool_calls[0].id, "c1");
  EXPECT_EQ(turn.earlier[2].tool_call_id, "c1");
  EXPECT_EQ(turn.earlier[2].name, "f");
}

TEST(AguiRequestTest, ANewThreadEndingWithResultsGoesOnFromThem) {
  std::vector<Message> messages = {Message::user("weather?"), Message::assistant("", {agui_test_call("c1", "w")}),
                                   Message{Role::kTool, "sunny", {}, "c1", {}, {}, {}}};
  std::variant<AguiTurn, AguiError> t = new_thread_turn(messages);
  ASSERT_TRUE(std::holds_alternative<AguiTurn>(t));
  EXPECT_TRUE(std::get<AguiTurn>(t).task.empty());
  EXPECT_EQ(std::get<AguiTurn>(t).earlier.size(), 3u);
  EXPECT_TRUE(std::holds_alternative<AguiError>(new_thread_turn({Message::user("hi"), Message::assistant("hello")})));
  EXPECT_TRUE(std::holds_alternative<AguiError>(new_thread_turn({})));
}

TEST(AguiRequestTest, AStoredThreadTakesWhatFollowsTheLastAssistantMessage) {
  const std::vector<ToolCall> pending = {agui_test_call("c1", "weather")};
  std::vector<Message> messages = {Message::user("weather?"),
                                   Message::assistant("", {agui_test_call("c1~0a1b2c3d1", "weather")}),
                                   Message{Role::kTool, "sunny", {}, "c1~0a1b2c3d1", {}, {}, {}}};
  std::variant<AguiTurn, AguiError> t = stored_thread_turn(messages, pending);
  ASSERT_TRUE(std::holds_alternative<AguiTurn>(t));
  const AguiTurn& turn = std::get<AguiTurn>(t);
  EXPECT_TRUE(turn.task.empty());
  ASSERT_EQ(turn.added.size(), 1u);
  EXPECT_EQ(turn.added[0].tool_call_id, "c1") << "keel's id, as stored";
  EXPECT_EQ(turn.added[0].name, "weather");
  EXPECT_EQ(turn.added[0].content, "sunny");

  // The user went on without running the call: it is answered "not run" and the message is the task.
  messages = {Message::user("weather?"), Message::assistant("", {agui_test_call("c1~0a1b2c3d1", "weather")}),
              Message::user("never mind"), Message::user("tell a joke")};
  t = stored_thread_turn(messages, pending);
  ASSERT_TRUE(std::holds_alternative<AguiTurn>(t));
  EXPECT_EQ(std::get<AguiTurn>(t).task, "tell a joke");
  ASSERT_EQ(std::get<AguiTurn>(t).added.size(), 1u);
  EXPECT_NE(std::get<AguiTurn>(t).added[0].content.find("not run"), std::string::npos);

  EXPECT_TRUE(
      std::holds_alternative<AguiError>(stored_thread_turn({Message::user("hi"), Message::assistant("hello")}, {})));
}

TEST(AguiRequestTest, UnansweredCallsAreThoseOfTheLastAssistantMessage) {
  std::vector<Message> stored = {Message::user("q"),
                                 Message::assistant("", {agui_test_call("a", "f"), agui_test_call("b", "g")}),
                                 Message{Role::kTool, "ra", {}, "a", {}, {}, {}}};
  std::vector<ToolCall> pending = unanswered_calls(stored);
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].id, "b");
  stored.push_back(Message::user("next"));
  EXPECT_TRUE(unanswered_calls(stored).empty());
  EXPECT_TRUE(unanswered_calls({}).empty());
}

TEST(AguiEventsTest, CallIdsCarryTheRunTagAndMapBack) {
  const std::string tag = agui::run_tag("r_0123456789abcdef0123456789abcdef");
  EXPECT_EQ(tag, "89abcdef");
  const std::string id = agui::agui_call_id("call_1", tag + "2");
  EXPECT_EQ(id, "call_1~89abcdef2");
  EXPECT_TRUE(agui::keel_call_id_matches(id, "call_1"));
  EXPECT_TRUE(agui::keel_call_id_matches("call_1", "call_1"));
  EXPECT_FALSE(agui::keel_call_id_matches(id, "call_"));
  EXPECT_FALSE(agui::keel_call_id_matches("call_1~zz", "call_1"));
  EXPECT_FALSE(agui::keel_call_id_matches("call_10", "call_1"));
}

TEST(AguiEventsTest, EventsUseTheProtocolsFieldsAndLeaveOutEmptyOptionalOnes) {
  EXPECT_EQ(agui::frame(agui::run_started("t", "r")),
            "data: {\"runId\":\"r\",\"threadId\":\"t\",\"type\":\"RUN_STARTED\"}\n\n");
  EXPECT_FALSE(agui::tool_call_start("c", "f", "").contains("parentMessageId"));
  EXPECT_EQ(agui::tool_call_start("c", "f", "m")["parentMessageId"], "m");
  EXPECT_FALSE(agui::run_error("boom", "").contains("code"));
  const json finished = agui::run_finished("t", "r", {"c~1"}, Usage{3, 4, 0});
  EXPECT_EQ(finished["outcome"], json::parse(R"({"type":"success","pendingToolCallIds":["c~1"]})"));
  EXPECT_EQ(finished["usage"], json::parse(R"([{"inputTokens":3,"outputTokens":4,"totalTokens":7}])"));
  EXPECT_FALSE(agui::run_finished("t", "r", {}, Usage{}).contains("usage"));
  EXPECT_EQ(
      agui::tool_call_result("m", "c", "out"),
      json::parse(R"({"type":"TOOL_CALL_RESULT","messageId":"m","toolCallId":"c","content":"out","role":"tool"})"));
  EXPECT_EQ(agui::new_message_id().size(), 28u);
  EXPECT_NE(agui::new_message_id(), agui::new_message_id());
}

}  // namespace
}  // namespace keel::api
