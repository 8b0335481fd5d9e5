// An MCP server's elicitation put to the person through the run's UserAsker: one question per
// field, typed answers, choices for enums and booleans, defaults, declines and cancels. Schemas in
// the shapes of the MCP 2025-11-25 elicitation page (string, number, boolean, enum with enumNames,
// oneOf with titles) and of the conformance suite's elicitation-sep1034-defaults fixture.
#include "assembly/mcp_elicitation.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <thread>

namespace keel::assembly {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

class ScriptedAsker final : public UserAsker {
 public:
  explicit ScriptedAsker(std::deque<Result<UserAnswer>> replies) : replies_(std::move(replies)) {}
  Result<UserAnswer> ask(const UserQuestion& q, std::stop_token stop) override {
    asked.push_back(q);
    if (wait_for_stop) {
      while (!stop.stop_requested()) std::this_thread::sleep_for(1ms);
      return Status::Cancelled("stopped");
    }
    if (replies_.empty()) return Status::FailedPrecondition("no answer");
    Result<UserAnswer> r = replies_.front();
    replies_.pop_front();
    return r;
  }
  std::vector<UserQuestion> asked;
  bool wait_for_stop = false;

 private:
  std::deque<Result<UserAnswer>> replies_;
};

UserAnswer typed(std::string text) { return UserAnswer{std::move(text), std::nullopt}; }
UserAnswer picked(size_t index) { return UserAnswer{"", index}; }

const json kForm = {
    {"message", "Tell us about you"},
    {"requestedSchema",
     {{"type", "object"},
      {"properties",
       {{"name", {{"type", "string"}, {"title", "Your name"}}},
        {"age", {{"type", "integer"}, {"minimum", 0}}},
        {"score", {{"type", "number"}, {"default", 95.5}}},
        {"subscribe", {{"type", "boolean"}}},
        {"plan", {{"type", "string"}, {"enum", {"free", "pro"}}, {"enumNames", {"Free", "Pro"}}}},
        {"size", {{"type", "string"}, {"oneOf", {{{"const", "s"}, {"title", "Small"}}, {{"const", "l"}, {"title", "Large"}}}}}}}},
      {"required", {"name", "age"}}}}};

TEST(McpElicitationThroughAsker, EachFieldIsAskedAndTypedAsTheSchemaSays) {
  auto asker = std::make_shared<ScriptedAsker>(
      std::deque<Result<UserAnswer>>{typed("42"), typed("Ada"), typed("Pro"), typed(""), picked(1), picked(0)});
  ElicitationHook hook = elicitation_through_asker(asker);
  ASSERT_TRUE(hook);
  json answer = hook("weather", kForm);
  ASSERT_EQ(answer["action"], "accept") << answer.dump();
  // nlohmann orders the properties by name: age, name, plan, score, size, subscribe.
  EXPECT_EQ(answer["content"], (json{{"age", 42}, {"name", "Ada"}, {"plan", "pro"}, {"score", 95.5}, {"size", "l"}, {"subscribe", true}}));
  ASSERT_EQ(asker->asked.size(), 6u);
  EXPECT_NE(asker->asked[1].question.find("MCP server 'weather' asks: Tell us about you"), std::string::npos);
  EXPECT_NE(asker->asked[1].question.find("Your name"), std::string::npos);
  EXPECT_EQ(asker->asked[2].options, (std::vector<std::string>{"Free", "Pro"}));
  EXPECT_FALSE(asker->asked[2].allow_free_text);
  EXPECT_NE(asker->asked[3].question.find("[default: 95.5]"), std::string::npos);
  EXPECT_EQ(asker->asked[4].options, (std::vector<std::string>{"Small", "Large"}));
  EXPECT_EQ(asker->asked[5].options, (std::vector<std::string>{"yes", "no"}));
}

TEST(McpElicitationThroughAsker, ARequiredFieldLeftOpenOrAValueThatDoesNotParseDeclines) {
  auto unanswered = std::make_shared<ScriptedAsker>(std::deque<Result<UserAnswer>>{});
  EXPECT_EQ(elicitation_through_asker(unanswered)("s", kForm)["action"], "decline");
  auto not_a_number = std::make_shared<ScriptedAsker>(std::deque<Result<UserAnswer>>{typed("forty")});
  EXPECT_EQ(elicitation_through_asker(not_a_number)("s", kForm)["action"], "decline");
  auto no_such_plan = std::make_shared<ScriptedAsker>(std::deque<Result<UserAnswer>>{typed("1"), typed("Ada"), typed("gold")});
  EXPECT_EQ(elicitation_through_asker(no_such_plan)("s", kForm)["action"], "decline");
}

TEST(McpElicitationThroughAsker, OptionalFieldsMayStayOpenAndDefaultsFillIn) {
  json form = {{"message", "Optional"},
               {"requestedSchema", {{"type", "object"},
                                    {"properties", {{"note", {{"type", "string"}}}, {"n", {{"type", "integer"}, {"default", 3}}}}}}}};
  auto asker = std::make_shared<ScriptedAsker>(std::deque<Result<UserAnswer>>{Status::FailedPrecondition("none"),
                                                                             Status::FailedPrecondition("none")});
  json answer = elicitation_through_asker(asker)("s", form);
  EXPECT_EQ(answer["action"], "accept");
  EXPECT_EQ(answer["content"], (json{{"n", 3}}));
}

TEST(McpElicitationThroughAsker, TheTimeoutCancels) {
  auto asker = std::make_shared<ScriptedAsker>(std::deque<Result<UserAnswer>>{});
  asker->wait_for_stop = true;
  EXPECT_EQ(elicitation_through_asker(asker, 50ms)("s", kForm)["action"], "cancel");
}

TEST(McpElicitationThroughAsker, AUrlElicitationAsksWhetherItWasCompleted) {
  json url = {{"mode", "url"}, {"url", "https://example.com/connect"}, {"message", "Connect your account"}};
  auto yes = std::make_shared<ScriptedAsker>(std::deque<Result<UserAnswer>>{picked(0)});
  EXPECT_EQ(elicitation_through_asker(yes)("s", url)["action"], "accept");
  EXPECT_NE(yes->asked[0].question.find("https://example.com/connect"), std::string::npos);
  auto no = std::make_shared<ScriptedAsker>(std::deque<Result<UserAnswer>>{picked(1)});
  EXPECT_EQ(elicitation_through_asker(no)("s", url)["action"], "decline");
}

TEST(McpElicitationThroughAsker, NoAskerNoHook) { EXPECT_FALSE(elicitation_through_asker(nullptr)); }

}  // namespace
}  // namespace keel::assembly
