#include "tools/script/pattern_cost.hpp"

#include <gtest/gtest.h>

namespace keel::detail {
namespace {

TEST(PatternCostTest, GrowsWithQuantifiersThatMustBacktrack) {
  // Literal pattern: one comparison per item at each start.
  EXPECT_DOUBLE_EQ(pattern_cost("abc", 99, true), 100.0 * 4);
  // Anchored: one start position.
  EXPECT_DOUBLE_EQ(pattern_cost("^abc", 99, true), 4.0);
  // gmatch does not anchor.
  EXPECT_DOUBLE_EQ(pattern_cost("^abc", 99, false), 100.0 * 5);
  // A trailing quantifier only extends a match: no extra factor.
  EXPECT_DOUBLE_EQ(pattern_cost("%s+", 99, true), 100.0 * 2);
  EXPECT_DOUBLE_EQ(pattern_cost("(%w+)$", 99, true), 100.0 * 3);
  // One that more pattern follows may backtrack over the whole subject.
  EXPECT_DOUBLE_EQ(pattern_cost("%w+=", 99, true), 100.0 * 100.0 * 3);
  EXPECT_DOUBLE_EQ(pattern_cost("a?b", 99, true), 100.0 * 2.0 * 3);
  // Escapes and sets are single items: "%*" is a literal star, "[%]*]" a set.
  EXPECT_DOUBLE_EQ(pattern_cost("%*x", 99, true), 100.0 * 3);
  EXPECT_DOUBLE_EQ(pattern_cost("[]*]x", 99, true), 100.0 * 3);
  EXPECT_DOUBLE_EQ(pattern_cost("[%]*]*x", 99, true), 100.0 * 100.0 * 3);
  // Balance and back-references scan.
  EXPECT_DOUBLE_EQ(pattern_cost("%b()x", 99, true), 100.0 * 100.0 * 3);
  EXPECT_DOUBLE_EQ(pattern_cost("(a)%1x", 99, true), 100.0 * 100.0 * 4);
  // Catastrophic patterns are astronomically expensive.
  EXPECT_GT(pattern_cost("a*a*a*a*a*a*a*a*b", 1000, true), 1e20);
}

TEST(PatternCostTest, PlainFindCostsNeedleTimesStarts) {
  EXPECT_DOUBLE_EQ(plain_find_cost(10, 20), 1.0);
  EXPECT_DOUBLE_EQ(plain_find_cost(1000, 1), 1000.0 * (1.0 / 16 + 1));
  EXPECT_GT(plain_find_cost(10'000'000, 5'000'000), 1e11);
}

}  // namespace
}  // namespace keel::detail
