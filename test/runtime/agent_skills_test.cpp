// The Agent with knowledge skills: the system prompt's Skills section (names and descriptions,
// triggered bodies, disabled skills left out, the window's budget) and load_skill end to end.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "keel/agent.hpp"
#include "keel/knowledge_skills.hpp"
#include "support/fake_llm.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using testing::FakeLlm;

// One token per byte: budgets can be computed exactly.
class ByteCounter final : public TokenCounter {
 public:
  size_t count(std::string_view text) const override { return text.size(); }
  size_t per_message_overhead() const override { return 0; }
};

// Keeps the run's metadata at its end.
struct Metadata : Hooks {
  std::map<std::string, std::string> seen;
  void on_run_finished(RunContext& ctx, const RunOutcome&) override { seen = ctx.metadata; }
};

class AgentSkillsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("skills/gas/SKILL.md",
               "---\nname: gas\ndescription: Current Ethereum gas prices\ntriggers: [gas fee]\n---\n"
               "L1 gas is 0.05-0.3 gwei.\n");
    dir_.write("skills/gas/fees.md", "base fee table\n");
    dir_.write("skills/l2/SKILL.md",
               "---\nname: l2\ndescription: Layer 2 networks\ntriggerPatterns: ['\\brollups?\\b']\n---\nUse blobs.\n");
    dir_.write("skills/old/SKILL.md", "---\nname: old\ndescription: Outdated notes\n---\nStale.\n");
    std::string d = (dir_.path() / "skills").string();
    KnowledgeSkillSet set = load_knowledge_skills(std::span<const std::string>(&d, 1));
    ASSERT_TRUE(set.problems.empty()) << set.problems.front();
    SkillSetting off;
    off.skill = "old";
    off.enabled = false;
    apply_skill_settings(set, std::span<const SkillSetting>(&off, 1));
    skills_ = set.skills;
  }

  AgentOptions options() {
    AgentOptions o;
    o.workspace = dir_.path().string();
    o.knowledge_skills = skills_;
    return o;
  }

  std::string system_prompt(size_t request = 0) {
    auto requests = llm_.requests();
    EXPECT_GT(requests.size(), request);
    if (requests.size() <= request || requests[request].messages.empty()) return {};
    EXPECT_EQ(requests[request].messages[0].role, Role::kSystem);
    return requests[request].messages[0].content;
  }

  testing::TempDir dir_;
  std::vector<KnowledgeSkill> skills_;
  FakeLlm llm_;
  ToolRegistry tools_;
};

TEST_F(AgentSkillsTest, TheSystemPromptListsEnabledSkillsAndLoadsTriggeredBodies) {
  ASSERT_TRUE(register_load_skill_tool(tools_, skills_).ok());
  llm_.push_text("done");
  Agent agent(llm_, tools_, options());
  auto meta = std::make_shared<Metadata>();
  agent.add_hooks(meta);
  Result<RunOutcome> out = agent.run("What is the gas fee on rollups today?");
  ASSERT_TRUE(out.ok() && out->ok) << out.status().to_string();
  const std::string prompt = system_prompt();
  const std::string expected_tail =
      "- gas: Current Ethereum gas prices (matches this task; loaded below)\n"
      "- l2: Layer 2 networks (matches this task; loaded below)\n\n"
      "# Skill: gas (matches this task)\nL1 gas is 0.05-0.3 gwei.\n\n"
      "# Skill: l2 (matches this task)\nUse blobs.";
  EXPECT_NE(prompt.find("\n\n# Skills\nSkills are instructions"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("call load_skill with its name"), std::string::npos);
  EXPECT_TRUE(prompt.ends_with(expected_tail)) << prompt;
  EXPECT_EQ(prompt.find("Outdated notes"), std::string::npos) << "a disabled skill is not disclosed";
  EXPECT_EQ(prompt.find("- old:"), std::string::npos);
  EXPECT_EQ(meta->seen["skills_loaded"], "gas, l2");
}

TEST_F(AgentSkillsTest, AnUntriggeredTaskGetsOnlyNamesAndDescriptions) {
  llm_.push_text("done");
  Agent agent(llm_, tools_, options());  // no load_skill registered: the section does not mention it
  ASSERT_TRUE(agent.run("list the files").ok());
  const std::string prompt = system_prompt();
  EXPECT_TRUE(
      prompt.ends_with("\n\n# Skills\nSkills are instructions and reference notes for particular kinds of "
                       "task, listed by name and description.\n"
                       "- gas: Current Ethereum gas prices\n- l2: Layer 2 networks"))
      << prompt;
  EXPECT_EQ(prompt.find("0.05-0.3 gwei"), std::string::npos);
  EXPECT_EQ(prompt.find("load_skill"), std::string::npos);
}

TEST_F(AgentSkillsTest, ASmallBudgetKeepsTheTriggeredSkillAndCountsTheRest) {
  const std::string intro =
      "# Skills\nSkills are instructions and reference notes for particular kinds of task, listed by name and "
      "description.\n";
  const std::string l2 = "- l2: Layer 2 networks (matches this task)\n";
  const std::string more = "\xE2\x80\xA6 and 1 more skill.\n";
  AgentOptions o = options();
  o.config.token_counter = std::make_shared<ByteCounter>();
  o.config.context.context_window = 0;  // unknown: the index gets unknown_window_tokens
  o.skill_disclosure.unknown_window_tokens = intro.size() + l2.size() + more.size();
  o.skill_disclosure.body_share_percent = 0;
  llm_.push_text("done");
  llm_.push_text("done");
  Agent agent(llm_, tools_, o);
  ASSERT_TRUE(agent.run("compare rollups").ok());
  std::string prompt = system_prompt(0);
  EXPECT_TRUE(prompt.ends_with("\n\n" + intro + l2 + more.substr(0, more.size() - 1))) << prompt;

  // With room for the gas line instead of the "more" line, every skill is listed.
  const std::string gas = "- gas: Current Ethereum gas prices";
  o.skill_disclosure.unknown_window_tokens = intro.size() + l2.size() + gas.size() + 1;  // + its newline
  Agent roomier(llm_, tools_, o);
  ASSERT_TRUE(roomier.run("compare rollups").ok());
  prompt = system_prompt(1);
  EXPECT_TRUE(prompt.ends_with("\n\n" + intro + l2 + gas)) << prompt;
}

TEST_F(AgentSkillsTest, TheModelReadsASkillThroughLoadSkill) {
  ASSERT_TRUE(register_load_skill_tool(tools_, skills_).ok());
  llm_.push_call("load_skill", R"({"name":"gas"})");
  llm_.push_call("load_skill", R"({"name":"gas","file":"fees.md"})");
  llm_.push_call("load_skill", R"({"name":"old"})");
  llm_.push_text("gas is cheap");
  Agent agent(llm_, tools_, options());
  Result<RunOutcome> out = agent.run("how expensive is a swap?");
  ASSERT_TRUE(out.ok() && out->ok) << out.status().to_string();
  EXPECT_EQ(out->answer, "gas is cheap");
  auto requests = llm_.requests();
  ASSERT_EQ(requests.size(), 4u);
  std::vector<std::string> results;
  for (const Message& m : requests[3].messages) {
    if (m.role == Role::kTool) results.push_back(m.content);
  }
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0],
            "# Skill: gas\nL1 gas is 0.05-0.3 gwei.\n\nFiles of this skill (read one with load_skill {\"name\": "
            "\"gas\", \"file\": PATH}):\n- fees.md");
  EXPECT_EQ(results[1], "base fee table\n");
  EXPECT_NE(results[2].find("skill 'old' is disabled in this workspace"), std::string::npos) << results[2];
}

}  // namespace
}  // namespace keel
