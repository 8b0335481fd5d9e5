// The machine as a session host sees it: committed messages, continuing a conversation, and
// resuming an interrupted run from its committed messages.
#include <gtest/gtest.h>

#include "keel/core/agent_machine.hpp"

namespace keel {
namespace {

ToolSpec spec(std::string name, bool read_only) {
  ToolSpec s;
  s.name = std::move(name);
  s.read_only = read_only;
  s.concurrency_safe = read_only;
  s.risk = Risk::kLow;
  return s;
}

std::vector<ToolSpec> tools() { return {spec("fs_read", true), spec("fs_write", false)}; }

ModelReply calls(std::vector<ToolCall> c) {
  ModelReply r;
  r.tool_calls = std::move(c);
  return r;
}

ModelReply text(std::string t) {
  ModelReply r;
  r.text = std::move(t);
  return r;
}

std::vector<Message> all_committed(std::vector<Decision>& ds) {
  std::vector<Message> out;
  for (auto& d : ds) out.insert(out.end(), d.committed.begin(), d.committed.end());
  return out;
}

TEST(AgentMachineSession, CommittedMessagesRebuildTheConversation) {
  AgentMachine m({}, tools(), "SYS", "TASK");
  std::vector<Decision> ds;
  ds.push_back(m.start());
  ds.push_back(m.step(ModelReplied{calls({{"c1", "fs_read", R"({"path":"a"})"}})}));
  ASSERT_TRUE(std::holds_alternative<RunTools>(ds.back().action));
  ds.push_back(m.step(ToolsFinished{{{"c1", "fs_read", ToolStatus::kOk, "hello", false, 1}}}));
  ds.push_back(m.step(ModelReplied{text("done")}));
  ASSERT_TRUE(std::holds_alternative<Finish>(ds.back().action));
  std::vector<Message> got = all_committed(ds);
  ASSERT_EQ(got.size(), m.history().size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].role, m.history()[i].role) << i;
    EXPECT_EQ(got[i].content, m.history()[i].content) << i;
  }
  EXPECT_EQ(ds[0].committed.size(), 2u);  // system prompt and task, before the first model call
  EXPECT_EQ(ds[2].committed.size(), 1u);  // the tool result, before the second model call
}

TEST(AgentMachineSession, ContinuationReplacesTheSystemPromptAndCommitsOnlyTheNewTask) {
  std::vector<Message> earlier = {Message::system("OLD"), Message::user("first"), Message::assistant("answer 1")};
  AgentMachine m({}, tools(), "NEW", earlier, "second");
  Decision d = m.start();
  ASSERT_EQ(m.history().size(), 4u);
  EXPECT_EQ(m.history()[0].content, "NEW");
  EXPECT_EQ(m.history()[3].content, "second");
  EXPECT_EQ(m.run_start(), 3u);
  ASSERT_EQ(d.committed.size(), 1u);
  EXPECT_EQ(d.committed[0].content, "second");
  EXPECT_EQ(std::get<CallModel>(d.action).request.history.size(), 4u);
}

std::vector<Message> interrupted_round() {
  Message asked = Message::assistant("", {{"c1", "fs_read", R"({"path":"a"})"},
                                          {"c2", "fs_write", R"({"path":"b"})"},
                                          {"c3", "fs_read", R"({"path":"c"})"}});
  ToolResult r1{"c1", "fs_read", ToolStatus::kOk, "A", false, 1};
  return {Message::system("SYS"), Message::user("old task"), Message::assistant("old answer"), Message::user("TASK"),
          asked, Message::tool(r1)};
}

TEST(AgentMachineSession, ResumeRerunsReadOnlyCallsAndReportsOthersAsInterrupted) {
  AgentMachine m = AgentMachine::resuming({}, tools(), "SYS2", interrupted_round(), 3);
  Decision d = m.start();
  auto* run = std::get_if<RunTools>(&d.action);
  ASSERT_NE(run, nullptr);
  ASSERT_EQ(run->calls.size(), 1u);
  EXPECT_EQ(run->calls[0].id, "c3");
  d = m.step(ToolsFinished{{{"c3", "fs_read", ToolStatus::kOk, "C", false, 1}}});
  ASSERT_TRUE(std::holds_alternative<CallModel>(d.action));
  ASSERT_EQ(d.committed.size(), 2u);
  EXPECT_EQ(d.committed[0].tool_call_id, "c2");
  EXPECT_EQ(d.committed[0].metadata.at("status"), "cancelled");
  EXPECT_NE(d.committed[0].content.find("interrupted"), std::string::npos);
  EXPECT_EQ(d.committed[1].tool_call_id, "c3");
  EXPECT_EQ(m.rounds_used(), 2);  // the interrupted round, and the one now asked for
  EXPECT_EQ(m.history()[0].content, "SYS2");
}

TEST(AgentMachineSession, ResumeAfterToolResultsCallsTheModel) {
  std::vector<Message> conv = interrupted_round();
  conv.push_back(Message::tool({"c2", "fs_write", ToolStatus::kOk, "written", false, 1}));
  conv.push_back(Message::tool({"c3", "fs_read", ToolStatus::kOk, "C", false, 1}));
  AgentMachine m = AgentMachine::resuming({}, tools(), "SYS", conv, 3);
  Decision d = m.start();
  auto* call = std::get_if<CallModel>(&d.action);
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->request.history.size(), conv.size());
  EXPECT_TRUE(d.committed.empty());
  d = m.step(ModelReplied{text("final")});
  ASSERT_TRUE(std::holds_alternative<Finish>(d.action));
  EXPECT_EQ(std::get<Finish>(d.action).answer, "final");
}

TEST(AgentMachineSession, ResumeOfAnAnsweredRunFinishesAtOnce) {
  std::vector<Message> conv = {Message::system("S"), Message::user("TASK"), Message::assistant("the answer")};
  AgentMachine m = AgentMachine::resuming({}, tools(), "S", conv, 1);
  Decision d = m.start();
  ASSERT_TRUE(std::holds_alternative<Finish>(d.action));
  EXPECT_EQ(std::get<Finish>(d.action).answer, "the answer");
  EXPECT_TRUE(d.committed.empty());
}

TEST(AgentMachineSession, ResumeRespectsTheRoundsAlreadyUsed) {
  AgentConfig cfg;
  cfg.max_rounds = 1;
  std::vector<Message> conv = interrupted_round();
  conv.push_back(Message::tool({"c2", "fs_write", ToolStatus::kOk, "w", false, 1}));
  conv.push_back(Message::tool({"c3", "fs_read", ToolStatus::kOk, "C", false, 1}));
  AgentMachine m = AgentMachine::resuming(cfg, tools(), "SYS", conv, 3);
  Decision d = m.start();
  auto* call = std::get_if<CallModel>(&d.action);
  ASSERT_NE(call, nullptr);
  EXPECT_TRUE(call->request.final_round);
  EXPECT_FALSE(call->request.tools_enabled);
}

}  // namespace
}  // namespace keel
