// spawn_agent: a sub-agent with its own conversation, a tool subset, a round limit and a depth
// limit; its answer is the tool result and its session is a hidden child of the caller's.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "keel/agent.hpp"
#include "keel/spawn_agent.hpp"
#include "keel/store/sqlite_store.hpp"
#include "support/fake_llm.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using testing::FakeLlm;

std::unique_ptr<Tool> echo_tool(std::string name) {
  ToolSpec s;
  s.name = std::move(name);
  s.description = "echo";
  s.read_only = true;
  s.concurrency_safe = true;
  return make_tool(s, [](const nlohmann::json&, const ToolContext&) -> Result<std::string> { return std::string("echoed"); });
}

bool offered(const testing::RecordedRequest& r, const std::string& name) {
  return std::find(r.tools.begin(), r.tools.end(), name) != r.tools.end();
}

class SpawnAgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions so;
    so.path = dir_.path() / "keel.db";
    auto s = open_sqlite_store(so);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    store_ = std::move(s).value();
    ASSERT_TRUE(tools_.add(echo_tool("lookup")).ok());
    ASSERT_TRUE(tools_.add(echo_tool("other")).ok());
  }
  AgentOptions options() {
    AgentOptions o;
    o.workspace = dir_.path().string();
    o.load_agents_md = false;
    o.stream = false;
    o.store = store_.get();
    return o;
  }
  void add_spawn(SpawnAgentOptions so = {}) {
    ASSERT_TRUE(register_spawn_agent_tool(tools_, llm_, options(), nullptr, so).ok());
  }

  testing::TempDir dir_;
  std::unique_ptr<Store> store_;
  ToolRegistry tools_;
  FakeLlm llm_;
};

TEST_F(SpawnAgentTest, TheSubAgentsAnswerIsTheToolResultAndItsSessionIsAHiddenChild) {
  add_spawn();
  llm_.push_call("spawn_agent", R"({"task": "look it up", "tools": ["lookup"], "max_rounds": 3})");
  llm_.push_call("lookup", "{}");            // the sub-agent's first round
  llm_.push_text("the sub-answer is 42");    // the sub-agent's answer
  llm_.push_text("Parent says: 42");         // the parent's answer
  Agent agent(llm_, tools_, options());
  auto out = agent.run("find the number");
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  ASSERT_TRUE(out->ok) << out->error;
  EXPECT_EQ(out->answer, "Parent says: 42");

  auto requests = llm_.requests();
  ASSERT_EQ(requests.size(), 4u);
  // The sub-agent has its own conversation (its task, not the parent's) and only its tool.
  EXPECT_EQ(requests[1].messages.back().content, "look it up");
  EXPECT_TRUE(offered(requests[1], "lookup"));
  EXPECT_FALSE(offered(requests[1], "other"));
  // Its answer came back to the parent as the spawn_agent result.
  const auto& last = requests[3].messages;
  EXPECT_TRUE(std::any_of(last.begin(), last.end(), [](const Message& m) {
    return m.role == Role::kTool && m.content == "the sub-answer is 42";
  }));

  auto visible = store_->list_sessions(SessionFilter{});
  ASSERT_TRUE(visible.ok());
  ASSERT_EQ(visible->size(), 1u);  // the sub-agent's session is hidden
  SessionFilter all;
  all.include_hidden = true;
  auto every = store_->list_sessions(all);
  ASSERT_TRUE(every.ok());
  ASSERT_EQ(every->size(), 2u);
  auto child = std::find_if(every->begin(), every->end(), [](const SessionRecord& s) { return s.hidden; });
  ASSERT_NE(child, every->end());
  EXPECT_EQ(child->parent_id, out->session_id);
}

TEST_F(SpawnAgentTest, TheDepthLimitHidesTheToolAtTheBottomAndRefusesDeeperCalls) {
  SpawnAgentOptions so;
  so.max_depth = 1;
  add_spawn(so);
  llm_.push_call("spawn_agent", R"({"task": "sub task"})");
  llm_.push_text("done below");
  llm_.push_text("done above");
  Agent agent(llm_, tools_, options());
  auto out = agent.run("go");
  ASSERT_TRUE(out.ok() && out->ok);
  auto requests = llm_.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_TRUE(offered(requests[0], "spawn_agent"));
  EXPECT_FALSE(offered(requests[1], "spawn_agent"));  // depth 1 == max_depth: no further nesting
  EXPECT_TRUE(offered(requests[1], "lookup"));

  ToolContext deep;
  deep.depth = 1;
  auto refused = tools_.find("spawn_agent")->execute({{"task", "x"}}, deep);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("at most 1 deep"), std::string::npos);
}

TEST_F(SpawnAgentTest, UnknownToolsAndFailedSubAgentsAreToolErrors) {
  add_spawn();
  auto unknown = tools_.find("spawn_agent")->execute({{"task", "x"}, {"tools", {"nope"}}}, ToolContext{});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown tool 'nope'"), std::string::npos);

  llm_.push(Status::Unavailable("backend down"));
  auto failed = tools_.find("spawn_agent")->execute({{"task", "x"}}, ToolContext{});
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("the sub-agent failed"), std::string::npos);
}

}  // namespace
}  // namespace keel
