// The Skills section: the index budget (which skills fit, in which order, the "more" line),
// triggered bodies under their own budget, and where the section lands in the system prompt.
#include "keel/core/skill_disclosure.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "keel/core/prompt_builder.hpp"

namespace keel {
namespace {

// One token per byte: budgets can be computed exactly.
class ByteCounter final : public TokenCounter {
 public:
  size_t count(std::string_view text) const override { return text.size(); }
  size_t per_message_overhead() const override { return 0; }
};

SkillEntry entry(std::string name, std::string description, bool triggered = false, std::string body = "") {
  SkillEntry e;
  e.name = std::move(name);
  e.description = std::move(description);
  e.triggered = triggered;
  e.body = std::move(body);
  return e;
}

// The intro's size: what comes before the first index line.
size_t intro_size(const SkillDisclosureOptions& o) {
  std::vector<SkillEntry> one = {entry("a", "d")};
  SkillDisclosure d = disclose_skills(one, 0, ByteCounter(), o);
  return d.text.find("- a: d");
}

const std::string kMore7 =
    "\xE2\x80\xA6 and 7 more skills; call load_skill with a name (an unknown name lists them all).";

TEST(SkillDisclosureTest, BudgetsAreAShareOfTheWindowWithAFloorAndADefaultForUnknownWindows) {
  SkillDisclosureOptions o;
  EXPECT_EQ(skill_index_budget(32768, o), 655u);  // 2%
  EXPECT_EQ(skill_index_budget(1000, o), 256u);   // floor
  EXPECT_EQ(skill_index_budget(0, o), 1024u);     // unknown window
  EXPECT_EQ(skill_body_budget(32768, o), 3276u);  // 10%
  EXPECT_EQ(skill_body_budget(1000, o), 512u);
  EXPECT_EQ(skill_body_budget(0, o), 4096u);
  o.share_percent = 5;
  o.body_share_percent = 0;
  EXPECT_EQ(skill_index_budget(100000, o), 5000u);
  EXPECT_EQ(skill_body_budget(100000, o), 0u);
}

TEST(SkillDisclosureTest, AWindowThatFitsThreeOfTenKeepsTriggeredThenByNameAndCountsTheRest) {
  SkillDisclosureOptions o;
  o.min_tokens = 0;
  o.body_share_percent = 0;  // triggered skills are only marked
  std::vector<SkillEntry> skills;
  for (int i = 9; i >= 0; --i) {
    skills.push_back(entry("s0" + std::to_string(i), "description " + std::to_string(i), i == 3 || i == 7));
  }
  const std::string l03 = "- s03: description 3 (matches this task; call load_skill to read it)\n";
  const std::string l07 = "- s07: description 7 (matches this task; call load_skill to read it)\n";
  const std::string l00 = "- s00: description 0\n";
  const size_t budget = intro_size(o) + l03.size() + l07.size() + l00.size() + kMore7.size() + 1;
  const size_t window = budget * 50;  // 2% of it is the budget

  SkillDisclosure d = disclose_skills(skills, window, ByteCounter(), o);
  EXPECT_EQ(d.index_budget, budget);
  EXPECT_EQ(d.listed, (std::vector<std::string>{"s03", "s07", "s00"}));
  EXPECT_EQ(d.omitted, 7u);
  EXPECT_TRUE(d.loaded.empty());
  EXPECT_EQ(d.text.substr(intro_size(o)), l03 + l07 + l00 + kMore7);
  EXPECT_TRUE(d.text.starts_with("# Skills\n"));
  EXPECT_LE(d.text.size(), budget);

  // One token less and only two fit.
  SkillDisclosure tighter = disclose_skills(skills, (budget - 1) * 50, ByteCounter(), o);
  EXPECT_EQ(tighter.listed, (std::vector<std::string>{"s03", "s07"}));
  EXPECT_EQ(tighter.omitted, 8u);
  EXPECT_TRUE(
      tighter.text.ends_with("\xE2\x80\xA6 and 8 more skills; call load_skill with a name (an unknown name "
                             "lists them all)."));
}

TEST(SkillDisclosureTest, EverythingFitsWithoutAMoreLine) {
  std::vector<SkillEntry> skills = {entry("zk", "zero knowledge"), entry("gas", "gas\n  prices\tand fees")};
  SkillDisclosure d = disclose_skills(skills, 32768, ByteCounter(), {});
  EXPECT_EQ(d.listed, (std::vector<std::string>{"gas", "zk"}));
  EXPECT_EQ(d.omitted, 0u);
  EXPECT_TRUE(d.text.ends_with("\n- gas: gas prices and fees\n- zk: zero knowledge")) << d.text;
  EXPECT_NE(d.text.find("call load_skill with its name"), std::string::npos);

  SkillDisclosureOptions no_tool;
  no_tool.load_tool = false;
  SkillDisclosure quiet = disclose_skills(skills, 32768, ByteCounter(), no_tool);
  EXPECT_EQ(quiet.text,
            "# Skills\nSkills are instructions and reference notes for particular kinds of task, listed "
            "by name and description.\n- gas: gas prices and fees\n- zk: zero knowledge");

  EXPECT_EQ(disclose_skills({}, 32768, ByteCounter(), {}).text, "");
}

TEST(SkillDisclosureTest, LongDescriptionsAreCut) {
  SkillDisclosureOptions o;
  o.max_description_chars = 10;
  std::vector<SkillEntry> skills = {entry("gas", "0123456789abcdef"),
                                    entry("eu", "caf\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9")};
  SkillDisclosure d = disclose_skills(skills, 32768, ByteCounter(), o);
  // 10 bytes would split an "é": the cut backs off to a character boundary.
  EXPECT_TRUE(d.text.ends_with("\n- eu: caf\xC3\xA9\xC3\xA9\xC3\xA9\xE2\x80\xA6\n- gas: 0123456789\xE2\x80\xA6"))
      << d.text;
}

TEST(SkillDisclosureTest, TriggeredBodiesAreLoadedBelowTheIndex) {
  std::vector<SkillEntry> skills = {entry("gas", "gas prices", true, "Use EIP-1559.\n\n"), entry("zk", "proofs")};
  SkillDisclosure d = disclose_skills(skills, 32768, ByteCounter(), {});
  EXPECT_EQ(d.loaded, (std::vector<std::string>{"gas"}));
  EXPECT_TRUE(d.cut.empty());
  EXPECT_TRUE(
      d.text.ends_with("- gas: gas prices (matches this task; loaded below)\n- zk: proofs\n\n"
                       "# Skill: gas (matches this task)\nUse EIP-1559."))
      << d.text;
}

TEST(SkillDisclosureTest, BodiesBeyondTheirBudgetAreCutAtALineOrLeftToLoadSkill) {
  SkillDisclosureOptions o;
  o.body_min_tokens = 0;
  o.body_share_percent = 1;
  std::string long_body;
  for (int i = 0; i < 40; ++i) long_body += "line " + std::to_string(i) + " of the gas skill\n";
  std::vector<SkillEntry> skills = {entry("gas", "gas", true, long_body), entry("l2", "l2", true, "short body")};
  // 1% of 30000: 300 tokens for both bodies; gas (first by name) takes them all.
  SkillDisclosure d = disclose_skills(skills, 30000, ByteCounter(), o);
  EXPECT_EQ(d.body_budget, 300u);
  EXPECT_EQ(d.loaded, (std::vector<std::string>{"gas"}));
  EXPECT_EQ(d.cut, (std::vector<std::string>{"gas"}));
  const std::string note = "\n[cut to fit the prompt; call load_skill with name \"gas\" for the whole skill]";
  const size_t body_at = d.text.find("# Skill: gas (matches this task)\n");
  ASSERT_NE(body_at, std::string::npos) << d.text;
  const std::string body = d.text.substr(body_at);
  EXPECT_TRUE(body.ends_with(" of the gas skill" + note)) << body;  // cut after a whole line
  EXPECT_LE(body.size() + 2, 300u);
  EXPECT_NE(d.text.find("- l2: l2 (matches this task; call load_skill to read it)"), std::string::npos) << d.text;
  EXPECT_NE(d.text.find("- gas: gas (matches this task; loaded below)"), std::string::npos);
}

TEST(SkillDisclosureTest, CutToTokensPrefersALineBoundary) {
  ByteCounter c;
  EXPECT_EQ(cut_to_tokens("short", 10, c), "short");
  EXPECT_EQ(cut_to_tokens("first line\nsecond line", 15, c), "first line\n");
  EXPECT_EQ(cut_to_tokens("a\nbcdefghijklmnop", 10, c), "a\nbcdefghi");  // the newline is too early
  EXPECT_EQ(cut_to_tokens("caf\xC3\xA9", 4, c), "caf");
}

TEST(SkillDisclosureTest, TheSystemPromptPlacesSkillsAfterProjectInstructionsAndBeforeHints) {
  SystemPromptParts parts;
  parts.core_instructions = "core";
  parts.project_instructions = "project\n";
  parts.skills = "# Skills\n- gas: gas prices\n";
  parts.hints = {"use fs_read"};
  EXPECT_EQ(build_system_prompt(parts),
            "core\n\n# Project instructions (AGENTS.md)\nproject\n\n# Skills\n- gas: gas prices\n\n# Hints\n- use "
            "fs_read");
  parts.skills.clear();
  EXPECT_EQ(build_system_prompt(parts),
            "core\n\n# Project instructions (AGENTS.md)\nproject\n\n# Hints\n- use fs_read");
}

}  // namespace
}  // namespace keel
