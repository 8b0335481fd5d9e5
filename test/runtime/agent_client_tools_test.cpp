// Client-side tools through the Agent: a client's tools are offered next to the agent's own,
// their calls are handed back in RunOutcome::client_calls, and the client's results continue the
// conversation, statelessly (run_after without a task) or in the stored session
// (continue_session with RunStartOptions::added).
#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>

#include "keel/agent.hpp"
#include "keel/store/sqlite_store.hpp"
#include "support/fake_llm.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using testing::FakeLlm;

ToolSpec client_weather_spec() {
  ToolSpec s;
  s.name = "get_weather";
  s.description = "the weather in a city";
  s.parameters_schema = R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})";
  return s;
}

class AgentClientToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions so;
    so.path = dir_.path() / "keel.db";
    auto s = open_sqlite_store(so);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    store_ = std::move(s).value();
    ToolSpec own;
    own.name = "lookup";
    own.description = "looks a word up";
    own.parameters_schema = R"({"type":"object","properties":{"word":{"type":"string"}}})";
    own.read_only = true;
    ASSERT_TRUE(tools_.add(make_tool(own, [this](const nlohmann::json&, const ToolContext&) -> Result<std::string> {
                       ++own_runs_;
                       return std::string("a word");
                     }))
                    .ok());
  }
  AgentOptions options(bool with_store) {
    AgentOptions o;
    o.workspace = dir_.path().string();
    o.load_agents_md = false;
    o.stream = false;
    o.store = with_store ? store_.get() : nullptr;
    return o;
  }
  testing::TempDir dir_;
  std::unique_ptr<Store> store_;
  ToolRegistry tools_;
  std::atomic<int> own_runs_{0};
  FakeLlm llm_;
};

TEST_F(AgentClientToolsTest, BadClientToolsAreRefusedNamingTheTool) {
  Agent agent(llm_, tools_, options(false));
  ToolSpec clash = client_weather_spec();
  clash.name = "lookup";
  Status s = agent.set_client_tools({clash});
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(s.message().find("'lookup'"), std::string::npos) << s.message();
  EXPECT_EQ(agent.set_client_tools({client_weather_spec(), client_weather_spec()}).code(), ErrorCode::kInvalidArgument);
  ToolSpec bad_name = client_weather_spec();
  bad_name.name = "get weather";
  EXPECT_EQ(agent.set_client_tools({bad_name}).code(), ErrorCode::kInvalidArgument);
  ToolSpec bad_schema = client_weather_spec();
  bad_schema.parameters_schema = "[1]";
  EXPECT_EQ(agent.set_client_tools({bad_schema}).code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(agent.set_client_tools({client_weather_spec()}).ok());
}

TEST_F(AgentClientToolsTest, AClientCallIsHandedBackAndItsResultContinuesStatelessly) {
  Agent agent(llm_, tools_, options(false));
  ASSERT_TRUE(agent.set_client_tools({client_weather_spec()}).ok());
  llm_.push_call("lookup", R"({"word":"Paris"})");
  llm_.push_call("get_weather", R"({"city":"Paris"})");
  Result<RunOutcome> first = agent.run("weather in Paris?");
  ASSERT_TRUE(first.ok()) << first.status().to_string();
  ASSERT_TRUE(first->ok) << first->error;
  ASSERT_EQ(first->client_calls.size(), 1u);
  EXPECT_EQ(first->client_calls[0].name, "get_weather");
  EXPECT_EQ(own_runs_.load(), 1);  // keel ran its own tool, not the client's
  const std::vector<std::string> offered = llm_.requests().at(0).tools;
  EXPECT_NE(std::find(offered.begin(), offered.end(), "get_weather"), offered.end());
  EXPECT_NE(std::find(offered.begin(), offered.end(), "lookup"), offered.end());

  // The client's next request: the conversation as it knows it, ending with its result.
  ToolResult result{first->client_calls[0].id, "get_weather", ToolStatus::kOk, "18C and sunny", false, 1};
  std::vector<Message> history = {Message::user("weather in Paris?"),
                                  Message::assistant("", {first->client_calls[0]}), Message::tool(result)};
  llm_.push_text("It is 18C and sunny.");
  Result<RunOutcome> second = agent.run_after(history, "");
  ASSERT_TRUE(second.ok()) << second.status().to_string();
  ASSERT_TRUE(second->ok) << second->error;
  EXPECT_EQ(second->answer, "It is 18C and sunny.");
  EXPECT_TRUE(second->client_calls.empty());
  const auto sent = llm_.requests().back().messages;
  EXPECT_TRUE(std::any_of(sent.begin(), sent.end(), [](const Message& m) {
    return m.role == Role::kTool && m.content == "18C and sunny";
  }));
}

TEST_F(AgentClientToolsTest, AContinuationWithoutResultsIsRefused) {
  Agent agent(llm_, tools_, options(false));
  ASSERT_TRUE(agent.set_client_tools({client_weather_spec()}).ok());
  std::vector<Message> unanswered = {Message::user("weather?"),
                                     Message::assistant("", {{"c1", "get_weather", R"({"city":"Paris"})"}})};
  Result<RunOutcome> out = agent.run_after(unanswered, "");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(llm_.requests().empty());
}

TEST_F(AgentClientToolsTest, TheStoredSessionContinuesWithTheAddedResults) {
  Agent agent(llm_, tools_, options(true));
  ASSERT_TRUE(agent.set_client_tools({client_weather_spec()}).ok());
  llm_.push_call("get_weather", R"({"city":"Oslo"})");
  Result<RunOutcome> first = agent.run("weather in Oslo?");
  ASSERT_TRUE(first.ok() && first->ok);
  ASSERT_EQ(first->client_calls.size(), 1u);

  RunStartOptions start;
  start.added = {Message::tool({first->client_calls[0].id, "get_weather", ToolStatus::kOk, "-3C", false, 1})};
  llm_.push_text("It is -3C in Oslo.");
  Result<RunOutcome> second = agent.continue_session(first->session_id, "", {}, start);
  ASSERT_TRUE(second.ok()) << second.status().to_string();
  ASSERT_TRUE(second->ok) << second->error;
  EXPECT_EQ(second->answer, "It is -3C in Oslo.");
  EXPECT_EQ(second->session_id, first->session_id);
  auto stored = store_->load_messages(first->session_id);
  ASSERT_TRUE(stored.ok());
  std::vector<Role> roles;
  for (const auto& m : *stored) roles.push_back(m.message.role);
  // the system prompt, the task, the call, the client's result, the answer: a later turn can read it.
  EXPECT_EQ(roles, (std::vector<Role>{Role::kSystem, Role::kUser, Role::kAssistant, Role::kTool, Role::kAssistant}));

  // Results that answer nothing are refused, and the stored run says so.
  RunStartOptions stray;
  stray.added = {Message::tool({"nope", "get_weather", ToolStatus::kOk, "x", false, 1})};
  Result<RunOutcome> third = agent.continue_session(first->session_id, "", {}, stray);
  EXPECT_FALSE(third.ok());
}

}  // namespace
}  // namespace keel
