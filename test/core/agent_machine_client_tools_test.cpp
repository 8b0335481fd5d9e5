// Client-side tools in the agent machine: calls the caller runs itself end the run, handed over,
// after keel's own calls of the same round; the caller's results continue the conversation.
#include <gtest/gtest.h>

#include <algorithm>

#include "keel/core/agent_machine.hpp"

namespace keel {
namespace {

ToolSpec own_spec(std::string name, Risk risk = Risk::kLow) {
  ToolSpec s;
  s.name = std::move(name);
  s.description = "keel's own tool";
  s.read_only = risk == Risk::kLow;
  s.risk = risk;
  return s;
}

ToolSpec client_side_spec(std::string name) {
  ToolSpec s;
  s.name = std::move(name);
  s.description = "the client's tool";
  s.parameters_schema = R"({"type":"object","properties":{"city":{"type":"string"}}})";
  s.risk = Risk::kHigh;  // a client tool is never asked about: the client decides
  s.client_side = true;
  return s;
}

std::vector<ToolSpec> tools() { return {own_spec("fs_read"), own_spec("shell", Risk::kHigh), client_side_spec("get_weather")}; }

ModelReply reply_with(std::vector<ToolCall> list, std::string text = "") {
  ModelReply r;
  r.text = std::move(text);
  r.tool_calls = std::move(list);
  return r;
}

TEST(AgentMachineClientToolsTest, AClientCallEndsTheRunHandedOverWithTheReplysText) {
  AgentMachine m(AgentConfig{}, tools(), "SYSTEM", "weather in Paris?");
  ASSERT_TRUE(std::holds_alternative<CallModel>(m.start().action));
  Decision d = m.step(ModelReplied{reply_with({{"c1", "get_weather", R"({"city":"Paris"})"}}, "Checking.")});
  const auto* finish = std::get_if<Finish>(&d.action);
  ASSERT_NE(finish, nullptr);
  EXPECT_EQ(finish->answer, "Checking.");
  ASSERT_EQ(finish->client_calls.size(), 1u);
  EXPECT_EQ(finish->client_calls[0].id, "c1");
  EXPECT_EQ(finish->client_calls[0].arguments, R"({"city":"Paris"})");
  EXPECT_EQ(m.phase(), AgentPhase::kFinished);
  // The assistant message with the call is committed; no result for it is made up.
  ASSERT_FALSE(d.committed.empty());
  EXPECT_EQ(d.committed.back().role, Role::kAssistant);
  EXPECT_EQ(d.committed.back().tool_calls.size(), 1u);
  EXPECT_TRUE(std::none_of(m.history().begin(), m.history().end(),
                           [](const Message& msg) { return msg.role == Role::kTool; }));
  // Nothing can add a round to a handed-over run: its calls wait for the caller's results.
  EXPECT_TRUE(std::holds_alternative<Fail>(m.step(ContinueRequested{"more"}).action));
}

TEST(AgentMachineClientToolsTest, OwnCallsOfTheSameRoundRunFirstAndOnlyThemAreAskedAbout) {
  AgentMachine m(AgentConfig{}, tools(), "SYSTEM", "task");
  m.start();
  Decision d = m.step(ModelReplied{reply_with({{"k1", "fs_read", R"({"path":"a"})"}, {"c1", "get_weather", "{}"}})});
  const auto* run = std::get_if<RunTools>(&d.action);
  ASSERT_NE(run, nullptr);
  ASSERT_EQ(run->calls.size(), 1u);
  EXPECT_EQ(run->calls[0].name, "fs_read");
  d = m.step(ToolsFinished{{{"k1", "fs_read", ToolStatus::kOk, "contents", false, 1}}});
  const auto* finish = std::get_if<Finish>(&d.action);
  ASSERT_NE(finish, nullptr);
  ASSERT_EQ(finish->client_calls.size(), 1u);
  EXPECT_EQ(finish->client_calls[0].name, "get_weather");
  ASSERT_EQ(m.history().back().role, Role::kTool);  // keel's own result is in the conversation
  EXPECT_EQ(m.history().back().tool_call_id, "k1");
}

TEST(AgentMachineClientToolsTest, AHighRiskClientToolIsNotAskedAboutWhileAnOwnOneIs) {
  AgentMachine m(AgentConfig{}, tools(), "SYSTEM", "task");
  m.start();
  Decision d = m.step(ModelReplied{reply_with({{"k1", "shell", R"({"command":"ls"})"}, {"c1", "get_weather", "{}"}})});
  const auto* ask = std::get_if<AskApproval>(&d.action);
  ASSERT_NE(ask, nullptr);
  ASSERT_EQ(ask->requests.size(), 1u);
  EXPECT_EQ(ask->requests[0].call.name, "shell");
}

TEST(AgentMachineClientToolsTest, BrokenArgumentsOfAClientCallGoBackToTheModelNotToTheClient) {
  AgentMachine m(AgentConfig{}, tools(), "SYSTEM", "task");
  m.start();
  Decision d = m.step(ModelReplied{reply_with({{"c1", "get_weather", "{\"city\":"}})});
  EXPECT_TRUE(std::holds_alternative<CallModel>(d.action));
}

TEST(AgentMachineClientToolsTest, TheCallersResultsContinueTheConversationWithoutATask) {
  std::vector<Message> earlier = {Message::user("weather in Paris?"),
                                  Message::assistant("", {{"c1", "get_weather", R"({"city":"Paris"})"}})};
  ToolResult r{"c1", "get_weather", ToolStatus::kOk, "18C and sunny", false, 1};
  AgentMachine m = AgentMachine::continuing(AgentConfig{}, tools(), "SYSTEM", earlier, {Message::tool(r)}, "");
  EXPECT_FALSE(m.has_task());
  Decision d = m.start();
  const auto* call = std::get_if<CallModel>(&d.action);
  ASSERT_NE(call, nullptr);
  ASSERT_EQ(d.committed.size(), 1u);  // the result is this run's first message
  EXPECT_EQ(d.committed[0].role, Role::kTool);
  const Message& last = call->request.history.back();
  EXPECT_EQ(last.role, Role::kTool);
  EXPECT_EQ(last.content, "18C and sunny");
  d = m.step(ModelReplied{reply_with({}, "It is 18C and sunny in Paris.")});
  ASSERT_TRUE(std::holds_alternative<Finish>(d.action));
  EXPECT_TRUE(std::get<Finish>(d.action).client_calls.empty());
}

TEST(AgentMachineClientToolsTest, APlanStepCannotCallAClientTool) {
  AgentMachine m(AgentConfig{}, tools(), "SYSTEM", "task");
  m.start();
  const std::string plan =
      R"({"plan": [{"tool": "get_weather", "args": {"city": "Paris"}, "save_as": "w"}], "reply": "Weather: {{tool.w.temp}}"})";
  Decision d = m.step(ModelReplied{reply_with({}, plan)});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  EXPECT_TRUE(std::any_of(d.guards.begin(), d.guards.end(), [](const GuardEvent& g) {
    return g.kind == GuardKind::kPlanHalted && g.detail.find("run by the client") != std::string::npos;
  }));
}

}  // namespace
}  // namespace keel
