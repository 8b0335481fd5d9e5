// The pure skill graph: Kahn's order with alphabetical ties, levels, cycle naming, the selection
// closure and skipWhen conditions.
#include "keel/core/skill_graph.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace keel {
namespace {

using nlohmann::json;
using Ids = std::vector<std::string>;

SkillNode node(std::string id, Ids depends = {}, Ids triggers = {}) {
  SkillNode n;
  n.id = std::move(id);
  n.depends = std::move(depends);
  n.triggers = std::move(triggers);
  return n;
}

TEST(SkillGraphTest, KahnOrderBreaksTiesAlphabeticallyAndLevelsGroupIndependentSkills) {
  // Given in a scrambled order on purpose.
  std::vector<SkillNode> nodes = {node("zeta"),    node("brief", {"score"}), node("score", {"extract"}),
                                  node("extract"), node("alpha", {"zeta"}),  node("cluster")};
  Result<SkillPlan> plan = plan_skill_graph(nodes);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->order, (Ids{"cluster", "extract", "score", "brief", "zeta", "alpha"}));
  ASSERT_EQ(plan->levels.size(), 3u);
  EXPECT_EQ(plan->levels[0], (Ids{"cluster", "extract", "zeta"}));
  EXPECT_EQ(plan->levels[1], (Ids{"alpha", "score"}));
  EXPECT_EQ(plan->levels[2], (Ids{"brief"}));
}

TEST(SkillGraphTest, ALevelIsTheLongestDependencyChainNotTheShortest) {
  // d depends on a (level 0) and c (level 2): d must wait for c, so it is on level 3.
  std::vector<SkillNode> nodes = {node("a"), node("b", {"a"}), node("c", {"b"}), node("d", {"a", "c"})};
  Result<SkillPlan> plan = plan_skill_graph(nodes);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->levels, (std::vector<Ids>{{"a"}, {"b"}, {"c"}, {"d"}}));
  EXPECT_EQ(plan->order, (Ids{"a", "b", "c", "d"}));
}

TEST(SkillGraphTest, RepeatedDependenciesCountOnce) {
  std::vector<SkillNode> nodes = {node("a"), node("b", {"a", "a"})};
  Result<SkillPlan> plan = plan_skill_graph(nodes);
  ASSERT_TRUE(plan.ok()) << plan.status().to_string();
  EXPECT_EQ(plan->order, (Ids{"a", "b"}));
}

TEST(SkillGraphTest, ACycleIsNamedFromItsSmallestMemberInDependencyDirection) {
  // ok -> c, and the cycle b -> d -> c -> b; "a" is outside the cycle but waits on it.
  std::vector<SkillNode> nodes = {node("a", {"d"}), node("b", {"d"}), node("c", {"b"}), node("d", {"c"}), node("ok")};
  Result<SkillPlan> plan = plan_skill_graph(nodes);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(plan.status().message(), "skill cycle: b → d → c → b");
}

TEST(SkillGraphTest, SelfDependencyIsACycleOfOne) {
  std::vector<SkillNode> nodes = {node("loop", {"loop"})};
  Result<SkillPlan> plan = plan_skill_graph(nodes);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().message(), "skill cycle: loop → loop");
}

TEST(SkillGraphTest, UnknownDependencyAndDuplicateIdsAreErrors) {
  std::vector<SkillNode> unknown = {node("a", {"ghost"})};
  Result<SkillPlan> p1 = plan_skill_graph(unknown);
  ASSERT_FALSE(p1.ok());
  EXPECT_EQ(p1.status().message(), "skill 'a' depends on 'ghost', which is not a loaded skill");
  std::vector<SkillNode> twice = {node("a"), node("a")};
  Result<SkillPlan> p2 = plan_skill_graph(twice);
  ASSERT_FALSE(p2.ok());
  EXPECT_EQ(p2.status().message(), "skill 'a' is defined twice");
}

TEST(SkillGraphTest, ClosureAddsTransitiveDependenciesOfIdsAndTriggers) {
  std::vector<SkillNode> nodes = {node("extract", {}, {"inbox"}),
                                  node("score", {"extract"}),
                                  node("brief", {"score"}),
                                  node("cluster", {}, {"inbox", "weekly"}),
                                  node("digest", {"cluster"}, {"weekly"}),
                                  node("unrelated")};
  Result<Ids> by_id = select_skill_closure(nodes, Ids{"brief"}, Ids{});
  ASSERT_TRUE(by_id.ok());
  EXPECT_EQ(*by_id, (Ids{"brief", "extract", "score"}));
  Result<Ids> by_trigger = select_skill_closure(nodes, Ids{}, Ids{"weekly"});
  ASSERT_TRUE(by_trigger.ok());
  EXPECT_EQ(*by_trigger, (Ids{"cluster", "digest"}));
  Result<Ids> both = select_skill_closure(nodes, Ids{"score"}, Ids{"inbox"});
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(*both, (Ids{"cluster", "extract", "score"}));
}

TEST(SkillGraphTest, ClosureErrorsNameWhatIsMissing) {
  std::vector<SkillNode> nodes = {node("b", {}, {"t1"}), node("a")};
  Result<Ids> none = select_skill_closure(nodes, Ids{}, Ids{});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), ErrorCode::kInvalidArgument);
  Result<Ids> id = select_skill_closure(nodes, Ids{"zz"}, Ids{});
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(id.status().message(), "no executable skill 'zz' (loaded: a, b)");
  Result<Ids> trig = select_skill_closure(nodes, Ids{}, Ids{"t9"});
  ASSERT_FALSE(trig.ok());
  EXPECT_EQ(trig.status().message(), "no executable skill has the trigger 't9' (triggers: t1)");
}

TEST(SkillGraphTest, SkipConditionsParseOnlyNoAndHasForms) {
  Result<SkipCondition> no = parse_skip_condition("no-candidates");
  ASSERT_TRUE(no.ok());
  EXPECT_EQ(no->kind, SkipCondition::Kind::kNo);
  EXPECT_EQ(no->key, "candidates");
  Result<SkipCondition> has = parse_skip_condition("has-open-issues");
  ASSERT_TRUE(has.ok());
  EXPECT_EQ(has->kind, SkipCondition::Kind::kHas);
  EXPECT_EQ(has->key, "open-issues");
  for (const char* bad : {"candidates", "no-", "has-", "none-x", "", "NO-x"}) {
    Result<SkipCondition> r = parse_skip_condition(bad);
    ASSERT_FALSE(r.ok()) << bad;
    std::string expected = "skipWhen '";
    expected.append(bad).append("' is not a condition: write \"no-KEY\" or \"has-KEY\"");
    EXPECT_EQ(r.status().message(), expected);
  }
}

TEST(SkillGraphTest, ContextValuesCountAsAbsentWhenEmptyish) {
  json ctx = {{"null", nullptr},       {"f", false}, {"zero", 0}, {"zerof", 0.0}, {"s", ""},     {"arr", json::array()},
              {"obj", json::object()}, {"t", true},  {"n", 3},    {"text", "x"},  {"list", {1}}, {"map", {{"k", 1}}}};
  for (const char* absent : {"missing", "null", "f", "zero", "zerof", "s", "arr", "obj"}) {
    EXPECT_FALSE(skill_context_has(ctx, absent)) << absent;
  }
  for (const char* present : {"t", "n", "text", "list", "map"}) EXPECT_TRUE(skill_context_has(ctx, present)) << present;
  EXPECT_FALSE(skill_context_has(json::array({1}), "0"));
}

TEST(SkillGraphTest, SkipReasonComesFromTheFirstConditionThatHolds) {
  std::vector<SkipCondition> conds = {*parse_skip_condition("has-done"), *parse_skip_condition("no-candidates")};
  EXPECT_EQ(skip_reason(conds, json{{"candidates", {1, 2}}}), std::nullopt);
  EXPECT_EQ(skip_reason(conds, json{{"candidates", json::array()}}),
            std::optional<std::string>("no-candidates: the context has no value 'candidates'"));
  EXPECT_EQ(skip_reason(conds, json{{"done", true}}),
            std::optional<std::string>("has-done: the context has a value 'done'"));
}

}  // namespace
}  // namespace keel
