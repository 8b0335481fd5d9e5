// Trigger matching: keywords and phrases as whole words regardless of case and spacing, and RE2
// patterns (case-insensitive, partial match).
#include <gtest/gtest.h>

#include "keel/knowledge_skills.hpp"

namespace keel {
namespace {

KnowledgeSkill skill(std::vector<std::string> triggers, std::vector<std::string> patterns = {}) {
  KnowledgeSkill s;
  s.name = "gas";
  s.description = "gas prices";
  s.triggers = std::move(triggers);
  s.trigger_patterns = std::move(patterns);
  return s;
}

TEST(KnowledgeSkillTriggersTest, KeywordsMatchWholeWordsInAnyCase) {
  EXPECT_TRUE(phrase_matches("gas", "What does GAS cost today?"));
  EXPECT_TRUE(phrase_matches("gas", "gas"));
  EXPECT_TRUE(phrase_matches("gas", "(gas)"));
  EXPECT_FALSE(phrase_matches("gas", "Las Vegas is sunny"));
  EXPECT_FALSE(phrase_matches("gas", "gasoline prices"));
  EXPECT_FALSE(phrase_matches("gas", "gas_price"));
  EXPECT_FALSE(phrase_matches("gas", "gas\xC3\xA9"));  // "gasé": a letter follows
  EXPECT_TRUE(phrase_matches("L2", "compare l2, rollups"));
  EXPECT_FALSE(phrase_matches("L2", "L2s"));
  EXPECT_FALSE(phrase_matches("", "anything"));
  EXPECT_FALSE(phrase_matches("  ", "anything"));
}

TEST(KnowledgeSkillTriggersTest, PhrasesMatchAcrossAnySpacingButNotInsideWords) {
  EXPECT_TRUE(phrase_matches("transaction cost", "the Transaction\n   Cost of a swap"));
  EXPECT_TRUE(phrase_matches("  transaction   cost ", "transaction cost"));
  EXPECT_FALSE(phrase_matches("transaction cost", "transaction costs"));
  EXPECT_FALSE(phrase_matches("transaction cost", "transactioncost"));
  // A phrase that ends in punctuation matches whatever follows it.
  EXPECT_TRUE(phrase_matches("c++", "write c++17 code"));
  EXPECT_FALSE(phrase_matches("c++", "write objc++ code"));
}

TEST(KnowledgeSkillTriggersTest, ASkillIsTriggeredByAnyKeywordOrPattern) {
  KnowledgeSkill s = skill({"gas fee", "gwei"}, {"\\bL2s?\\b", "blob(s)? space"});
  EXPECT_TRUE(knowledge_skill_triggered(s, "How many GWEI is a transfer?"));
  EXPECT_TRUE(knowledge_skill_triggered(s, "what is the gas fee now"));
  EXPECT_TRUE(knowledge_skill_triggered(s, "Which l2s are cheapest?"));
  EXPECT_TRUE(knowledge_skill_triggered(s, "BLOBS SPACE usage"));
  EXPECT_FALSE(knowledge_skill_triggered(s, "gas station near me"));
  EXPECT_FALSE(knowledge_skill_triggered(s, "L22 results"));
  EXPECT_FALSE(knowledge_skill_triggered(skill({}), "gas fee gwei"));
}

TEST(KnowledgeSkillTriggersTest, PatternsArePartialAndCaseInsensitive) {
  EXPECT_TRUE(knowledge_skill_triggered(skill({}, {"gas"}), "Las VEGAS"));  // a pattern is not a whole word
  EXPECT_FALSE(knowledge_skill_triggered(skill({}, {"^gas$"}), "gas prices"));
  // A pattern that does not compile (as loading would have reported) never matches.
  EXPECT_FALSE(knowledge_skill_triggered(skill({}, {"gas("}), "gas("));
}

}  // namespace
}  // namespace keel
