// The run_skill tool: an agent's call runs a skill by id and gets its outcome as JSON, or an error
// naming the skill that failed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "keel/skill_runner.hpp"
#include "skills/skill_test_support.hpp"

namespace keel {
namespace {

using nlohmann::json;
using testing::object_skill;
using testing::RuleModel;
using testing::skill_of;
using testing::SkillRequest;
using testing::text_reply;

TEST(RunSkillToolTest, RunsTheSkillByIdAndReturnsItsOutcome) {
  RuleModel model([](const SkillRequest& r, const CallOptions&) -> Result<ModelReply> {
    if (skill_of(r) == "good") return text_reply(R"({"x": "fine"})");
    return text_reply("garbage");
  });
  auto runner = SkillRunner::create({object_skill("good", {"x"}), object_skill("bad", {"x"})}, model, {});
  ASSERT_TRUE(runner.ok());
  std::unique_ptr<Tool> tool = make_run_skill_tool(**runner);
  const ToolSpec& spec = tool->spec();
  EXPECT_EQ(spec.name, "run_skill");
  EXPECT_EQ(spec.risk, Risk::kMedium);
  EXPECT_FALSE(spec.concurrency_safe);
  EXPECT_EQ(json::parse(spec.parameters_schema)["properties"]["id"]["enum"], json({"bad", "good"}));
  EXPECT_NE(spec.description.find("Skills: bad, good"), std::string::npos) << spec.description;

  ToolContext ctx;
  Result<std::string> ok = tool->execute(json{{"id", "good"}, {"input", {{"q", 1}}}}, ctx);
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  json out = json::parse(*ok);
  EXPECT_EQ(out["ok"], true);
  ASSERT_EQ(out["skills"].size(), 1u);
  EXPECT_EQ(out["skills"][0]["id"], "good");
  EXPECT_EQ(out["skills"][0]["status"], "succeeded");
  EXPECT_EQ(out["skills"][0]["output"], json({{"x", "fine"}}));
  EXPECT_NE(model.requests_for("good").at(0).user.find("\"q\": 1"), std::string::npos);

  Result<std::string> bad = tool->execute(json{{"id", "bad"}}, ctx);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(
      bad.status().message().rfind("the skill run failed: bad failed: skill 'bad': the output was rejected twice: ", 0),
      0u)
      << bad.status().message();
  Result<std::string> unknown = tool->execute(json{{"id", "ghost"}}, ctx);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(), "no executable skill 'ghost' (loaded: bad, good)");
}

}  // namespace
}  // namespace keel
