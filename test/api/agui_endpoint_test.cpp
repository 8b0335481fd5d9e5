// POST /agui: a keel run as AG-UI events (text, keel's tool calls and their results, state
// snapshots, the run's end), threads that continue stored sessions, client-side tools, the
// client's context and state, and approvals that stay the operator's.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/agui_endpoint_fixture.hpp"

namespace keel::testing {
namespace {

using nlohmann::json;

class AguiEndpointTest : public AguiEndpointFixture {};

TEST_F(AguiEndpointTest, StreamsAToolRoundAndTheAnswerAsAguiEvents) {
  start();
  mock_.push(mock_stream(reply("Let me look.", {call("call_1", "fs_list", R"({"path":"."})")}, {10, 5})));
  mock_.push(mock_stream(reply("It holds notes.txt.", {}, {20, 7})));
  auto r = post(agui_input("thread-a", json::array({agui_user("u1", "List the folder")}), "run-a"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->header("content-type"), "text/event-stream");
  const std::vector<json> events = agui_events(r->body);
  EXPECT_EQ(agui_types(events),
            (std::vector<std::string>{"RUN_STARTED", "STATE_SNAPSHOT", "STATE_SNAPSHOT", "TEXT_MESSAGE_START",
                                      "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TOOL_CALL_START", "TOOL_CALL_ARGS",
                                      "TOOL_CALL_END", "TOOL_CALL_RESULT", "STATE_SNAPSHOT", "TEXT_MESSAGE_START",
                                      "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "STATE_SNAPSHOT", "RUN_FINISHED"}))
      << r->body;
  ASSERT_GE(events.size(), 16u);
  EXPECT_EQ(events.front(), json::parse(R"({"type":"RUN_STARTED","threadId":"thread-a","runId":"run-a"})"));

  const std::vector<json> starts = agui_of(events, "TEXT_MESSAGE_START");
  ASSERT_EQ(starts.size(), 2u);
  const std::string first = starts[0]["messageId"];
  const std::string second = starts[1]["messageId"];
  EXPECT_EQ(starts[0]["role"], "assistant");
  EXPECT_NE(first, second) << "each model call is its own assistant message";
  EXPECT_EQ(agui_text(events, first), "Let me look.");
  EXPECT_EQ(agui_text(events, second), "It holds notes.txt.");

  const json tool_start = agui_of(events, "TOOL_CALL_START").at(0);
  const std::string call_id = tool_start["toolCallId"];
  EXPECT_EQ(call_id.rfind("call_1~", 0), 0u) << call_id;
  EXPECT_EQ(tool_start["toolCallName"], "fs_list");
  EXPECT_EQ(tool_start["parentMessageId"], first) << "the call belongs to the text of its model call";
  const json args = agui_of(events, "TOOL_CALL_ARGS").at(0);
  EXPECT_EQ(args["toolCallId"], call_id);
  EXPECT_EQ(json::parse(args["delta"].get<std::string>()), json::parse(R"({"path":"."})"));
  EXPECT_EQ(agui_of(events, "TOOL_CALL_END").at(0)["toolCallId"], call_id);
  const json result = agui_of(events, "TOOL_CALL_RESULT").at(0);
  EXPECT_EQ(result["toolCallId"], call_id);
  EXPECT_EQ(result["role"], "tool");
  EXPECT_NE(result["content"].get<std::string>().find("notes.txt"), std::string::npos) << result;
  EXPECT_NE(result["messageId"], first);

  const std::vector<json> snapshots = agui_of(events, "STATE_SNAPSHOT");
  ASSERT_EQ(snapshots.size(), 4u);
  const json& keel = snapshots[0]["snapshot"]["keel"];
  const std::string session = keel["session_id"];
  EXPECT_EQ(session.rfind("s_", 0), 0u) << keel;
  EXPECT_EQ(keel["run_id"].get<std::string>().rfind("r_", 0), 0u) << keel;
  EXPECT_EQ(keel["status"], "starting");
  EXPECT_EQ(snapshots[1]["snapshot"]["keel"]["round"], 1);
  EXPECT_EQ(snapshots[2]["snapshot"]["keel"]["round"], 2);
  EXPECT_EQ(snapshots[3]["snapshot"]["keel"]["status"], "finished");

  const json finished = events.back();
  EXPECT_EQ(finished["threadId"], "thread-a");
  EXPECT_EQ(finished["runId"], "run-a");
  EXPECT_EQ(finished["outcome"], json::parse(R"({"type":"success"})"));
  EXPECT_EQ(finished["usage"][0]["inputTokens"], 30);
  EXPECT_EQ(finished["usage"][0]["outputTokens"], 12);

  EXPECT_EQ(stored(session), (std::vector<std::string>{"user: List the folder", "assistant: Let me look.",
                                                       "tool: " + result["content"].get<std::string>(),
                                                       "assistant: It holds notes.txt."}));
  auto run = store_->latest_run(session);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->state, RunState::kFinished);
}

TEST_F(AguiEndpointTest, AnAnswerThatWasNotStreamedStillArrivesAsAMessage) {
  start();
  mock_.push(mock_text("Hello there."));  // the backend answers in one piece
  auto r = post(agui_input("thread-b", json::array({agui_user("u1", "hi")})));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const std::vector<json> events = agui_events(r->body);
  const std::vector<json> starts = agui_of(events, "TEXT_MESSAGE_START");
  ASSERT_EQ(starts.size(), 1u) << r->body;
  EXPECT_EQ(agui_text(events, starts[0]["messageId"]), "Hello there.");
  EXPECT_EQ(events.back()["type"], "RUN_FINISHED");
}

TEST_F(AguiEndpointTest, TheSameThreadContinuesItsStoredSession) {
  start();
  mock_.push(mock_stream(reply("Paris is in France.")));
  auto first = post(agui_input("thread-c", json::array({agui_user("u1", "Where is Paris?")})));
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  const std::string session = agui_session(agui_events(first->body));
  ASSERT_FALSE(session.empty());

  mock_.push(mock_stream(reply("You asked about Paris.")));
  // A front end sends the whole thread again; only the new user message is the next turn.
  auto second =
      post(agui_input("thread-c",
                      json::array({agui_user("u1", "Where is Paris?"), agui_assistant("m1", "Paris is in France."),
                                   agui_user("u2", "What did I ask?")}),
                      "run-2"));
  ASSERT_TRUE(second);
  ASSERT_EQ(second->status, 200) << second->body;
  EXPECT_EQ(agui_session(agui_events(second->body)), session);
  EXPECT_EQ(stored(session), (std::vector<std::string>{"user: Where is Paris?", "assistant: Paris is in France.",
                                                       "user: What did I ask?", "assistant: You asked about Paris."}));
  const json sent = model_messages(1);
  ASSERT_GE(sent.size(), 4u) << sent;
  EXPECT_EQ(sent[1]["content"], "Where is Paris?");
  EXPECT_EQ(sent[2]["content"], "Paris is in France.");
  auto sessions = store_->list_sessions(SessionFilter{});
  ASSERT_TRUE(sessions.ok());
  EXPECT_EQ(sessions->size(), 1u) << "the second run did not start another session";
}

TEST_F(AguiEndpointTest, ANewThreadStartsFromTheHistoryItsMessagesCarry) {
  start();
  mock_.push(mock_stream(reply("Still Paris.")));
  auto r = post(agui_input(
      "thread-d",
      json::array({agui_user("u1", "Where is Paris?"),
                   agui_assistant("m1", "In France.",
                                  json::array({{{"id", "call_x"},
                                                {"type", "function"},
                                                {"function", {{"name", "get_weather"}, {"arguments", "{}"}}}}})),
                   agui_user("u2", "And now?")})));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const std::string session = agui_session(agui_events(r->body));
  // The call nobody answered is left out: a model refuses a conversation with one.
  EXPECT_EQ(stored(session), (std::vector<std::string>{"user: Where is Paris?", "assistant: In France.",
                                                       "user: And now?", "assistant: Still Paris."}));
  auto messages = store_->load_messages(session);
  ASSERT_TRUE(messages.ok());
  EXPECT_TRUE((*messages)[1].message.tool_calls.empty());
}

TEST_F(AguiEndpointTest, AThreadIdNamingAStoredSessionContinuesIt) {
  start();
  mock_.push(mock_stream(reply("First answer.")));
  auto first = post(agui_input("thread-e", json::array({agui_user("u1", "first question")})));
  ASSERT_TRUE(first);
  const std::string session = agui_session(agui_events(first->body));
  ASSERT_FALSE(session.empty());
  mock_.push(mock_stream(reply("Second answer.")));
  auto second = post(agui_input(session, json::array({agui_user("u2", "second question")})));
  ASSERT_TRUE(second);
  ASSERT_EQ(second->status, 200) << second->body;
  const std::vector<json> events = agui_events(second->body);
  EXPECT_EQ(events.front()["threadId"], session);
  EXPECT_EQ(agui_session(events), session);
  EXPECT_EQ(stored(session).size(), 4u);
}

TEST_F(AguiEndpointTest, ClientToolsEndTheRunAndTheirResultsContinueIt) {
  start();
  mock_.push(mock_stream(reply("", {call("call_w", "get_weather", R"({"city":"Paris"})")})));
  json input = agui_input("thread-f", json::array({agui_user("u1", "Weather in Paris?")}));
  input["tools"] =
      json::array({{{"name", "get_weather"},
                    {"description", "The weather in a city"},
                    {"parameters", {{"type", "object"}, {"properties", {{"city", {{"type", "string"}}}}}}}}});
  auto first = post(input);
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200) << first->body;
  std::vector<json> events = agui_events(first->body);
  EXPECT_EQ(agui_types(events),
            (std::vector<std::string>{"RUN_STARTED", "STATE_SNAPSHOT", "STATE_SNAPSHOT", "TOOL_CALL_START",
                                      "TOOL_CALL_ARGS", "TOOL_CALL_END", "STATE_SNAPSHOT", "RUN_FINISHED"}))
      << first->body;
  const json start_event = agui_of(events, "TOOL_CALL_START").at(0);
  const std::string call_id = start_event["toolCallId"];
  EXPECT_EQ(start_event["toolCallName"], "get_weather");
  EXPECT_EQ(json::parse(agui_of(events, "TOOL_CALL_ARGS").at(0)["delta"].get<std::string>()),
            json::parse(R"({"city":"Paris"})"));
  EXPECT_EQ(events.back()["outcome"]["pendingToolCallIds"], json::array({call_id}));
  EXPECT_TRUE(agui_of(events, "TOOL_CALL_RESULT").empty()) << "the client runs its own tool";
  const json offered = json::parse(mock_.request_bodies().at(0))["tools"];
  EXPECT_NE(offered.dump().find("get_weather"), std::string::npos) << offered;

  mock_.push(mock_stream(reply("It is sunny in Paris.")));
  input["runId"] = "run-2";
  input["messages"] = json::array(
      {agui_user("u1", "Weather in Paris?"),
       agui_assistant("m1", "",
                      json::array({{{"id", call_id},
                                    {"type", "function"},
                                    {"function", {{"name", "get_weather"}, {"arguments", R"({"city":"Paris"})"}}}}})),
       agui_tool("t1", call_id, "sunny, 22 C")});
  auto second = post(input);
  ASSERT_TRUE(second);
  ASSERT_EQ(second->status, 200) << second->body;
  events = agui_events(second->body);
  const std::vector<json> starts = agui_of(events, "TEXT_MESSAGE_START");
  ASSERT_EQ(starts.size(), 1u) << second->body;
  EXPECT_EQ(agui_text(events, starts[0]["messageId"]), "It is sunny in Paris.");
  const json tool = model_tool_message(1);
  EXPECT_EQ(tool["tool_call_id"], "call_w") << "keel's own id reaches the model";
  EXPECT_EQ(tool["content"], "sunny, 22 C");
  EXPECT_EQ(agui_session(events), agui_session(agui_events(first->body)));
}

TEST_F(AguiEndpointTest, TheClientsContextReachesTheModelAndItsStateIsKept) {
  start();
  mock_.push(mock_stream(reply("ok")));
  json input = agui_input("thread-g", json::array({agui_user("u1", "Plan my day")}));
  input["context"] = json::array({{{"description", "user's city"}, {"value", "Lyon"}}});
  input["state"] = {{"theme", "dark"}};
  auto r = post(input);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const json sent = model_messages(0);
  EXPECT_NE(sent.dump().find("user's city: Lyon"), std::string::npos) << sent;
  const json snapshot = agui_of(agui_events(r->body), "STATE_SNAPSHOT").at(0)["snapshot"];
  EXPECT_EQ(snapshot["theme"], "dark");
  EXPECT_TRUE(snapshot["keel"].is_object());
}

TEST_F(AguiEndpointTest, CallsNeedingApprovalAreDeniedWithAMessageTheModelSees) {
  ApprovalPolicy confirm_everything;
  confirm_everything.override_mode = ApprovalMode::kConfirm;
  confirm_everything.override_source = "test";
  start({}, confirm_everything);
  mock_.push(mock_stream(reply("", {call("call_1", "fs_list", R"({"path":"."})")})));
  mock_.push(mock_stream(reply("I could not look.")));
  json input = agui_input("thread-h", json::array({agui_user("u1", "List the folder")}));
  input["forwardedProps"] = {{"approval_mode", "auto"}, {"approve", true}};  // a client cannot loosen the policy
  auto r = post(input);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const std::vector<json> events = agui_events(r->body);
  EXPECT_EQ(
      agui_types(events),
      (std::vector<std::string>{"RUN_STARTED", "STATE_SNAPSHOT", "STATE_SNAPSHOT", "TOOL_CALL_START", "TOOL_CALL_ARGS",
                                "TOOL_CALL_END", "TOOL_CALL_RESULT", "STATE_SNAPSHOT", "TEXT_MESSAGE_START",
                                "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "STATE_SNAPSHOT", "RUN_FINISHED"}))
      << r->body;
  EXPECT_EQ(agui_of(events, "TOOL_CALL_START").at(0)["toolCallName"], "fs_list");
  const json result = agui_of(events, "TOOL_CALL_RESULT").at(0);
  EXPECT_NE(result["content"].get<std::string>().find("approvals are not possible over the AG-UI endpoint"),
            std::string::npos)
      << result;
  EXPECT_NE(model_tool_message(1)["content"].get<std::string>().find("approvals are not possible"), std::string::npos);
  EXPECT_EQ(events.back()["type"], "RUN_FINISHED");
}

}  // namespace
}  // namespace keel::testing
