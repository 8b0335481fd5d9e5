// Discovery of knowledge skills on disk: folder precedence and hiding, problems that do not stop
// the others, index links (followed, bounded, cycles ignored, escapes refused), resources, and
// the workspace's enable/disable overrides.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "keel/knowledge_skills.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string skill_md(const std::string& name, const std::string& description, const std::string& body = "") {
  return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body;
}

class KnowledgeSkillDiscoveryTest : public ::testing::Test {
 protected:
  std::vector<std::string> dirs() const {
    return {(ws_.path() / ".keel/skills").string(), (ws_.path() / ".agents/skills").string(),
            (user_.path() / "skills").string()};
  }
  KnowledgeSkillSet load() const {
    std::vector<std::string> d = dirs();
    return load_knowledge_skills(d);
  }
  std::string keel_dir() const { return (ws_.path() / ".keel/skills").string(); }

  TempDir ws_;
  TempDir user_;
};

std::vector<std::string> descriptions(const KnowledgeSkillSet& set) {
  std::vector<std::string> out;
  for (const auto& s : set.skills) out.push_back(s.name + "=" + s.description);
  return out;
}

TEST_F(KnowledgeSkillDiscoveryTest, AnEarlierFolderHidesALaterSkillOfTheSameName) {
  ws_.write(".keel/skills/gas/SKILL.md", skill_md("gas", "workspace gas"));
  ws_.write(".agents/skills/gas/SKILL.md", skill_md("gas", "agents gas"));
  ws_.write(".agents/skills/zk/SKILL.md", skill_md("zk", "agents zk"));
  user_.write("skills/gas/SKILL.md", skill_md("gas", "user gas"));
  user_.write("skills/blobs/SKILL.md", skill_md("blobs", "user blobs"));
  user_.write("skills/alpha/SKILL.md", skill_md("alpha", "user alpha"));

  KnowledgeSkillSet set = load();
  EXPECT_EQ(descriptions(set),
            (std::vector<std::string>{"gas=workspace gas", "zk=agents zk", "alpha=user alpha", "blobs=user blobs"}));
  EXPECT_TRUE(set.problems.empty()) << set.problems.front();
  const KnowledgeSkill* gas = set.find("gas");
  ASSERT_NE(gas, nullptr);
  EXPECT_EQ(gas->source_dir, keel_dir());
  EXPECT_EQ(gas->folder, (ws_.path() / ".keel/skills/gas").string());
  EXPECT_EQ(gas->file, (ws_.path() / ".keel/skills/gas/SKILL.md").string());
  EXPECT_TRUE(gas->enabled);
  EXPECT_EQ(set.find("nope"), nullptr);
}

TEST_F(KnowledgeSkillDiscoveryTest, ABadSkillIsAProblemAndTheOthersStillLoad) {
  ws_.write(".keel/skills/bad/SKILL.md", "---\nname: bad\ndescription: [unclosed\n---\n");
  ws_.write(".keel/skills/empty/SKILL.md", "no frontmatter here\n");
  ws_.write(".keel/skills/good/SKILL.md", skill_md("good", "works"));
  ws_.write(".keel/skills/notes/README.md", "a folder without SKILL.md is not a skill");
  ws_.write(".keel/skills/.hidden/SKILL.md", skill_md("hidden", "dot folders are skipped"));
  ws_.write(".keel/skills/runner/SKILL.md", "instructions of an executable skill");
  ws_.write(".keel/skills/runner/skill.json", "{}");
  ws_.write(".keel/skills/twin/SKILL.md", skill_md("good", "same name as good, same folder"));

  KnowledgeSkillSet set = load();
  EXPECT_EQ(descriptions(set), (std::vector<std::string>{"good=works"}));
  const std::string base = keel_dir();
  ASSERT_EQ(set.problems.size(), 3u);
  EXPECT_TRUE(set.problems[0].starts_with(base + "/bad/SKILL.md:")) << set.problems[0];
  EXPECT_NE(set.problems[0].find("not valid YAML"), std::string::npos) << set.problems[0];
  EXPECT_TRUE(set.problems[1].starts_with(base + "/empty/SKILL.md:1: no frontmatter")) << set.problems[1];
  EXPECT_EQ(set.problems[2], base + "/twin/SKILL.md: skill 'good' is already defined by " + base +
                                 "/good/SKILL.md; this one is ignored");
}

TEST_F(KnowledgeSkillDiscoveryTest, AnIndexMakesItsLinkedSkillsDiscoverable) {
  ws_.write(".keel/skills/eth/SKILL.md",
            skill_md("ethskills", "index of Ethereum skills",
                     "- [Gas](gas/SKILL.md)\n- [L2s](./layer2/SKILL.md)\n- [web](https://ethskills.com/x/SKILL.md)\n"
                     "- [self](SKILL.md)\n"));
  ws_.write(".keel/skills/eth/gas/SKILL.md", skill_md("gas", "gas prices"));
  ws_.write(".keel/skills/eth/layer2/SKILL.md", skill_md("l2s", "layer 2s", "[Rollups](rollups/SKILL.md)\n"));
  ws_.write(".keel/skills/eth/layer2/rollups/SKILL.md", skill_md("rollups", "rollup details"));
  ws_.write(".keel/skills/eth/gas/fees.md", "fee table");

  KnowledgeSkillSet set = load();
  EXPECT_EQ(descriptions(set), (std::vector<std::string>{"ethskills=index of Ethereum skills", "gas=gas prices",
                                                         "l2s=layer 2s", "rollups=rollup details"}));
  EXPECT_TRUE(set.problems.empty()) << set.problems.front();
  EXPECT_EQ(set.find("gas")->index, "ethskills");
  EXPECT_EQ(set.find("rollups")->index, "l2s");
  EXPECT_EQ(set.find("ethskills")->index, "");
  EXPECT_EQ(set.find("gas")->folder, keel_dir() + "/eth/gas");
  EXPECT_EQ(set.find("gas")->resources, (std::vector<std::string>{"fees.md"}));
  // The index's own resources leave out the folders of its sub-skills.
  EXPECT_TRUE(set.find("ethskills")->resources.empty());
}

TEST_F(KnowledgeSkillDiscoveryTest, IndexLinksThatLeaveTheFolderAreRefused) {
  TempDir outside;
  outside.write("secret/SKILL.md", skill_md("secret", "outside the skills folder"));
  ws_.write(".keel/skills/other/SKILL.md", skill_md("other", "a sibling"));
  ws_.write(".keel/skills/eth/SKILL.md",
            skill_md("eth", "index",
                     "[up](../other/SKILL.md) [abs](" + (outside.path() / "secret/SKILL.md").string() +
                         ") [link](escape/SKILL.md) [gone](missing/SKILL.md) [deep](a/../../other/SKILL.md)\n"));
  fs::create_symlink(outside.path() / "secret", ws_.path() / ".keel/skills/eth/escape");

  KnowledgeSkillSet set = load();
  EXPECT_EQ(descriptions(set), (std::vector<std::string>{"eth=index", "other=a sibling"}));
  const std::string index = keel_dir() + "/eth/SKILL.md";
  ASSERT_EQ(set.problems.size(), 5u);
  EXPECT_EQ(set.problems[0], index +
                                 ": the link to ../other/SKILL.md is not followed: it goes up with '..'; index "
                                 "links must be relative paths inside the skill's folder");
  EXPECT_EQ(set.problems[1], index + ": the link to " + (outside.path() / "secret/SKILL.md").string() +
                                 " is not followed: it is an absolute path; index links must be relative paths "
                                 "inside the skill's folder");
  EXPECT_EQ(set.problems[2], index +
                                 ": the link to escape/SKILL.md is not followed: it leads outside the skill's "
                                 "folder (through a symbolic link) to " +
                                 (outside.path() / "secret/SKILL.md").string());
  EXPECT_TRUE(set.problems[3].starts_with(index + ": the link to missing/SKILL.md is not followed: it does not lead "
                                                  "to a readable file"))
      << set.problems[3];
  EXPECT_TRUE(set.problems[4].starts_with(index + ": the link to a/../../other/SKILL.md is not followed: it goes up"))
      << set.problems[4];
}

TEST_F(KnowledgeSkillDiscoveryTest, IndexCyclesAreIgnoredAndDepthIsBounded) {
  // a → b → c → d → e: links are followed from skills at most kMaxIndexDepth (3) links deep.
  ws_.write(".keel/skills/a/SKILL.md", skill_md("a", "depth 0", "[b](b/SKILL.md)"));
  ws_.write(".keel/skills/a/b/c/SKILL.md", skill_md("c", "depth 2", "[d](d/SKILL.md)"));
  ws_.write(".keel/skills/a/b/c/d/SKILL.md", skill_md("d", "depth 3", "[e](e/SKILL.md)"));
  ws_.write(".keel/skills/a/b/c/d/e/SKILL.md", skill_md("e", "depth 4"));
  // A link inside the folder back to the index itself: read once.
  fs::create_directory_symlink(ws_.path() / ".keel/skills/a", ws_.path() / ".keel/skills/a/b/loop");
  ws_.write(".keel/skills/a/b/SKILL.md", skill_md("b", "depth 1", "[c](c/SKILL.md) [back](loop/SKILL.md)"));

  KnowledgeSkillSet set = load();
  EXPECT_EQ(descriptions(set), (std::vector<std::string>{"a=depth 0", "b=depth 1", "c=depth 2", "d=depth 3"}));
  EXPECT_TRUE(set.problems.empty()) << set.problems.front();
}

TEST_F(KnowledgeSkillDiscoveryTest, ResourcesAreTheFolderFilesWithoutHiddenOnesOrLinks) {
  ws_.write(".keel/skills/gas/SKILL.md", skill_md("gas", "g"));
  ws_.write(".keel/skills/gas/references/fees.md", "fees");
  ws_.write(".keel/skills/gas/scripts/estimate.py", "print(1)");
  ws_.write(".keel/skills/gas/.secret", "hidden");
  ws_.write(".keel/skills/gas/.git/config", "hidden");
  ws_.write(".keel/skills/gas/a/b/c/too-deep.md", "deep");
  fs::create_symlink("/etc/hostname", ws_.path() / ".keel/skills/gas/host");

  KnowledgeSkillSet set = load();
  ASSERT_EQ(set.skills.size(), 1u);
  EXPECT_EQ(set.skills[0].resources, (std::vector<std::string>{"references/fees.md", "scripts/estimate.py"}));
}

TEST_F(KnowledgeSkillDiscoveryTest, MissingFoldersAreFineAndSettingsDisableSkills) {
  EXPECT_TRUE(load().skills.empty());
  EXPECT_TRUE(load().problems.empty());

  ws_.write(".keel/skills/gas/SKILL.md", skill_md("gas", "g"));
  ws_.write(".keel/skills/zk/SKILL.md", skill_md("zk", "z"));
  KnowledgeSkillSet set = load();
  std::vector<SkillSetting> settings(3);
  settings[0].skill = "gas";
  settings[0].enabled = false;
  settings[1].skill = "zk";
  settings[1].auto_run = true;  // no `enabled`: stays on
  settings[2].skill = "unknown";
  settings[2].enabled = false;
  apply_skill_settings(set, settings);
  EXPECT_FALSE(set.find("gas")->enabled);
  EXPECT_TRUE(set.find("zk")->enabled);
  EXPECT_EQ(set.names(), (std::vector<std::string>{"gas", "zk"}));
}

}  // namespace
}  // namespace keel
