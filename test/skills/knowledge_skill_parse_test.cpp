// SKILL.md parsing: frontmatter fields, the errors that name file and line, CRLF, and the links of
// an index.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "keel/knowledge_skills.hpp"

namespace keel {
namespace {

constexpr const char* kFile = "/ws/.keel/skills/gas/SKILL.md";

Result<KnowledgeSkill> parse(const std::string& text, std::vector<std::string>* warnings = nullptr) {
  std::vector<std::string> local;
  return parse_knowledge_skill(text, kFile, warnings != nullptr ? *warnings : local);
}

TEST(KnowledgeSkillParseTest, ReadsEveryFieldAndIgnoresOtherToolsKeys) {
  std::vector<std::string> warnings;
  Result<KnowledgeSkill> s = parse(
      "---\n"
      "name: gas\n"
      "description: Current Ethereum gas prices\n"
      "triggers: [gas fee, gwei]\n"
      "triggerPatterns:\n"
      "  - '\\bL2s?\\b'\n"
      "domain: ethereum\n"
      "license: MIT\n"
      "allowed-tools: [Read, Grep]\n"
      "metadata: {author: someone, version: 2}\n"
      "---\n"
      "\n"
      "## What You Probably Got Wrong\n"
      "Ethereum L1 gas is 0.05-0.3 gwei.\n\n",
      &warnings);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->name, "gas");
  EXPECT_EQ(s->description, "Current Ethereum gas prices");
  EXPECT_EQ(s->triggers, (std::vector<std::string>{"gas fee", "gwei"}));
  EXPECT_EQ(s->trigger_patterns, (std::vector<std::string>{"\\bL2s?\\b"}));
  EXPECT_EQ(s->domain, "ethereum");
  EXPECT_EQ(s->body, "## What You Probably Got Wrong\nEthereum L1 gas is 0.05-0.3 gwei.");
  EXPECT_EQ(s->file, kFile);
  EXPECT_TRUE(s->frontmatter.starts_with("name: gas\n")) << s->frontmatter;
  EXPECT_TRUE(warnings.empty());
}

TEST(KnowledgeSkillParseTest, AcceptsCrlfAByteOrderMarkAndASingleTriggerString) {
  Result<KnowledgeSkill> s = parse(
      "\xEF\xBB\xBF---\r\nname: gas\r\ndescription: >\r\n  Gas prices\r\n  and fees\r\ntriggers: gwei\r\n---\r\n"
      "line one\r\nline two\r\n");
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->description, "Gas prices and fees");
  EXPECT_EQ(s->triggers, (std::vector<std::string>{"gwei"}));
  EXPECT_EQ(s->body, "line one\nline two");
}

TEST(KnowledgeSkillParseTest, MissingRequiredKeysNameTheFileAndLine) {
  Result<KnowledgeSkill> no_name = parse("---\ndescription: x\n---\nbody\n");
  EXPECT_EQ(no_name.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(no_name.status().message(),
            "/ws/.keel/skills/gas/SKILL.md:2: the frontmatter has no name; add e.g. `name: gas`");

  Result<KnowledgeSkill> no_description = parse("---\nname: gas\n---\n");
  EXPECT_EQ(no_description.status().message(),
            "/ws/.keel/skills/gas/SKILL.md:2: the frontmatter has no description; add e.g. `description: what the "
            "skill is for`");

  Result<KnowledgeSkill> empty_description = parse("---\nname: gas\ndescription: \"  \"\n---\n");
  EXPECT_EQ(empty_description.status().message(), "/ws/.keel/skills/gas/SKILL.md:3: description must not be empty");
}

TEST(KnowledgeSkillParseTest, WrongTypesAndBadNamesPointAtTheirLine) {
  EXPECT_EQ(parse("---\nname: gas\ndescription: [a, b]\n---\n").status().message(),
            "/ws/.keel/skills/gas/SKILL.md:3: description must be a string");
  EXPECT_EQ(parse("---\nname: gas\ndescription: d\n\ntriggers: {a: b}\n---\n").status().message(),
            "/ws/.keel/skills/gas/SKILL.md:5: triggers must be a list of strings, e.g. [gas, fees]");
  EXPECT_EQ(parse("---\nname: ../etc\ndescription: d\n---\n").status().message(),
            "/ws/.keel/skills/gas/SKILL.md:2: name '../etc' is not a skill name: use letters, digits, '-', '_' and "
            "'.', starting with a letter or digit, at most 64 characters");
  EXPECT_EQ(parse("---\n- a\n- b\n---\n").status().message(),
            "/ws/.keel/skills/gas/SKILL.md:2: the frontmatter must be a mapping of keys to values, e.g. `name: gas` "
            "and `description: ...`");
  EXPECT_EQ(parse("---\n---\nbody\n").status().message(),
            "/ws/.keel/skills/gas/SKILL.md:1: the frontmatter must be a mapping of keys to values, e.g. `name: gas` "
            "and `description: ...`");
}

TEST(KnowledgeSkillParseTest, BadYamlNamesTheFileAndLine) {
  Result<KnowledgeSkill> s = parse("---\nname: gas\ndescription: d\ntriggers: [a, b\ndomain: x\n---\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_TRUE(s.status().message().starts_with("/ws/.keel/skills/gas/SKILL.md:")) << s.status().message();
  EXPECT_NE(s.status().message().find(": not valid YAML: "), std::string::npos) << s.status().message();

  Result<KnowledgeSkill> tab = parse("---\nname: gas\n\tdescription: d\n---\n");
  ASSERT_FALSE(tab.ok());
  EXPECT_TRUE(tab.status().message().starts_with("/ws/.keel/skills/gas/SKILL.md:3: not valid YAML: "))
      << tab.status().message();
}

TEST(KnowledgeSkillParseTest, WithoutFrontmatterOrWithAnOpenOneIsAnError) {
  EXPECT_EQ(parse("# Gas\nname: gas\n").status().message(),
            "/ws/.keel/skills/gas/SKILL.md:1: no frontmatter: SKILL.md must start with a line `---`, then `name:` and "
            "`description:`, then another `---` line");
  EXPECT_EQ(parse("---\nname: gas\ndescription: d\n").status().message(),
            "/ws/.keel/skills/gas/SKILL.md:1: the frontmatter opened here is not closed: add a line `---` after it");
  EXPECT_EQ(parse("").status().code(), ErrorCode::kInvalidArgument);
}

TEST(KnowledgeSkillParseTest, ABadTriggerPatternIsAWarningAndIsLeftOut) {
  std::vector<std::string> warnings;
  Result<KnowledgeSkill> s =
      parse("---\nname: gas\ndescription: d\ntrigger_patterns: ['gas(', 'fees?']\n---\n", &warnings);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->trigger_patterns, (std::vector<std::string>{"fees?"}));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(
      warnings[0].starts_with("/ws/.keel/skills/gas/SKILL.md:4: trigger_patterns has 'gas(', which is not a "
                              "valid RE2 regular expression ("))
      << warnings[0];
  EXPECT_TRUE(warnings[0].ends_with("); it is ignored")) << warnings[0];

  EXPECT_EQ(
      parse("---\nname: gas\ndescription: d\ntriggerPatterns: [a]\ntrigger_patterns: [b]\n---\n").status().message(),
      "/ws/.keel/skills/gas/SKILL.md:5: triggerPatterns and trigger_patterns are the same setting; keep one");
}

TEST(KnowledgeSkillParseTest, IndexLinksAreTheSkillMdTargetsOutsideCodeFences) {
  std::vector<std::string> links = skill_index_links(
      "# ETHSkills\n"
      "- [Gas](gas/SKILL.md) — fees\n"
      "- [L2s](./l2s/SKILL.md#top \"Layer 2\") and [wallets](<wallets/SKILL.md>)\n"
      "- [readme](README.md), [remote](https://ethskills.com/gas/SKILL.md?v=2)\n"
      "```\n"
      "[not a link](code/SKILL.md)\n"
      "```\n"
      "- [escape](../other/SKILL.md) [almost](gas/NOTSKILL.md)\n");
  EXPECT_EQ(links, (std::vector<std::string>{"gas/SKILL.md", "./l2s/SKILL.md", "wallets/SKILL.md",
                                             "https://ethskills.com/gas/SKILL.md", "../other/SKILL.md"}));
}

}  // namespace
}  // namespace keel
