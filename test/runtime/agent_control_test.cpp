// What hosts that manage runs from outside need from the agent: a stop that suspends instead of
// aborting, steering while a run works, a run id chosen in advance, and a run after a supplied
// conversation.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "keel/agent.hpp"
#include "keel/store/sqlite_store.hpp"
#include "support/fake_llm.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using testing::FakeLlm;

class AgentControlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions so;
    so.path = dir_.path() / "keel.db";
    store_ = std::move(open_sqlite_store(so)).value();
    ToolSpec s;
    s.name = "echo";
    s.description = "returns its input";
    s.parameters_schema = R"({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]})";
    s.read_only = true;
    ASSERT_TRUE(tools_.add(make_tool(s, [](const nlohmann::json& a, const ToolContext&) -> Result<std::string> {
                  return "got " + a["text"].get<std::string>();
                })).ok());
  }
  AgentOptions options() {
    AgentOptions o;
    o.workspace = dir_.path().string();
    o.load_agents_md = false;
    o.stream = false;
    o.store = store_.get();
    return o;
  }
  testing::TempDir dir_;
  std::unique_ptr<Store> store_;
  ToolRegistry tools_;
  FakeLlm llm_;
};

TEST_F(AgentControlTest, AStopThatSuspendsLeavesTheRunResumable) {
  std::stop_source stop;
  bool suspend = true;
  AgentOptions o = options();
  o.suspend_on_stop = [&] { return suspend; };
  llm_.push_call("echo", R"({"text":"a"})");
  llm_.set_before_reply([&](const CallOptions&) { stop.request_stop(); });
  Agent agent(llm_, tools_, o);
  Result<RunOutcome> out = agent.run("task", stop.get_token());
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->ok);
  EXPECT_TRUE(out->suspended);
  EXPECT_EQ(store_->get_run(out->run_id)->state, RunState::kRunning);  // not aborted

  FakeLlm again;
  again.push_text("resumed answer");
  Agent second(again, tools_, options());
  Result<RunOutcome> resumed = second.resume(out->run_id);
  ASSERT_TRUE(resumed.ok());
  EXPECT_TRUE(resumed->ok) << resumed->error;
  EXPECT_EQ(resumed->answer, "resumed answer");
  EXPECT_EQ(store_->get_run(out->run_id)->state, RunState::kFinished);

  // Without the predicate saying so, a stop aborts as before.
  std::stop_source stop2;
  suspend = false;
  FakeLlm third;
  third.push_text("never");
  third.set_before_reply([&](const CallOptions&) { stop2.request_stop(); });
  Agent aborting(third, tools_, o);
  Result<RunOutcome> aborted = aborting.run("task", stop2.get_token());
  ASSERT_TRUE(aborted.ok());
  EXPECT_FALSE(aborted->suspended);
  EXPECT_EQ(aborted->failure, FailureKind::kAborted);
  EXPECT_EQ(store_->get_run(aborted->run_id)->state, RunState::kAborted);
}

TEST_F(AgentControlTest, SteeringBecomesAUserMessageBeforeTheNextModelCall) {
  Agent* agent_ptr = nullptr;
  int calls = 0;
  llm_.push_call("echo", R"({"text":"a"})");
  llm_.push_text("done");
  llm_.set_before_reply([&](const CallOptions&) {
    if (++calls == 1) {
      EXPECT_TRUE(agent_ptr->steer("prefer short answers"));
    }
  });
  Agent agent(llm_, tools_, options());
  agent_ptr = &agent;
  EXPECT_FALSE(agent.steer("nobody is running"));
  Result<RunOutcome> out = agent.run("task");
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(out->ok);
  auto requests = llm_.requests();
  ASSERT_EQ(requests.size(), 2u);
  const auto& msgs = requests[1].messages;
  // The guidance follows the tool result (never between a call and its result).
  auto guidance = std::find_if(msgs.begin(), msgs.end(), [](const Message& m) { return m.content == "prefer short answers"; });
  ASSERT_NE(guidance, msgs.end());
  EXPECT_EQ(guidance->role, Role::kUser);
  ASSERT_NE(guidance, msgs.begin());
  EXPECT_EQ((guidance - 1)->role, Role::kTool);
  auto stored = store_->load_messages(out->session_id);
  EXPECT_EQ(stored->back().message.content, "done");
  EXPECT_EQ((*stored)[stored->size() - 2].message.content, "prefer short answers");
}

TEST_F(AgentControlTest, SteeringThatArrivesWithTheAnswerGetsAnotherRound) {
  Agent* agent_ptr = nullptr;
  int calls = 0;
  llm_.push_text("first answer");
  llm_.push_text("revised answer");
  llm_.set_before_reply([&](const CallOptions&) {
    if (++calls == 1) agent_ptr->steer("also mention the date");
  });
  Agent agent(llm_, tools_, options());
  agent_ptr = &agent;
  Result<RunOutcome> out = agent.run("task");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->answer, "revised answer");
  const std::vector<Message> last = llm_.requests().back().messages;
  EXPECT_TRUE(std::any_of(last.begin(), last.end(), [](const Message& m) {
    return m.role == Role::kUser && m.content == "also mention the date";
  }));
  EXPECT_EQ(llm_.requests().size(), 2u);
}

TEST_F(AgentControlTest, ARunCanBeGivenItsIdAndAConversation) {
  std::string session = *store_->create_session({});
  llm_.push_text("one");
  Agent agent(llm_, tools_, options());
  RunStartOptions start;
  start.run_id = "r_00000000000000aa";
  Result<RunOutcome> out = agent.continue_session(session, "hello", {}, start);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->run_id, "r_00000000000000aa");
  start.run_id = "not-an-id";
  Result<RunOutcome> bad = agent.continue_session(session, "hello", {}, start);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);

  llm_.push_text("after history");
  std::vector<Message> earlier = {Message::system("ignored"), Message::user("my name is Ada"),
                                  Message::assistant("hello Ada")};
  Result<RunOutcome> after = agent.run_after(earlier, "what is my name?");
  ASSERT_TRUE(after.ok());
  ASSERT_TRUE(after->ok);
  const std::vector<Message> sent = llm_.requests().back().messages;
  ASSERT_EQ(sent.size(), 4u);  // keel's system prompt, the two earlier messages, the task
  EXPECT_EQ(sent[0].role, Role::kSystem);
  EXPECT_NE(sent[0].content, "ignored");
  EXPECT_EQ(sent[1].content, "my name is Ada");
  EXPECT_EQ(sent[3].content, "what is my name?");
  auto stored = store_->load_messages(after->session_id);
  ASSERT_EQ(stored->size(), 4u);
  EXPECT_EQ((*stored)[0].run_id, "");  // supplied history is not part of the run
  EXPECT_EQ((*stored)[2].run_id, after->run_id);
}

}  // namespace
}  // namespace keel
