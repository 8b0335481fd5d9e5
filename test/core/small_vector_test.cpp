// SmallVector (small_vector.hpp): elements stay in order and intact across the move from inline
// room to the heap, copies are deep, and pop_back() shrinks.
#include "core/text/small_vector.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <span>

namespace keel::detail {
namespace {

struct Pair {
  std::size_t a;
  std::size_t b;
};

TEST(SmallVector, KeepsOrderAcrossTheMoveToTheHeap) {
  SmallVector<Pair, 4> v;
  EXPECT_TRUE(v.empty());
  for (std::size_t i = 0; i < 37; ++i) v.emplace_back(i, 100 + i);
  ASSERT_EQ(v.size(), 37u);
  for (std::size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(v[i].a, i);
    EXPECT_EQ(v[i].b, 100 + i);
  }
  EXPECT_EQ(v.back().a, 36u);
  std::size_t sum = 0;
  for (const auto& [a, b] : v) sum += b - a;
  EXPECT_EQ(sum, 37u * 100);
  const std::span<const Pair> s = v;
  EXPECT_EQ(s.size(), 37u);
  EXPECT_EQ(s[20].b, 120u);
}

TEST(SmallVector, CopiesAreDeepAndPopBackShrinks) {
  SmallVector<Pair, 2> v;
  for (std::size_t i = 0; i < 5; ++i) v.push_back(Pair{i, i});
  SmallVector<Pair, 2> copy = v;
  v[0].a = 99;
  v.pop_back();
  EXPECT_EQ(v.size(), 4u);
  EXPECT_EQ(copy.size(), 5u);
  EXPECT_EQ(copy[0].a, 0u);
  EXPECT_EQ(copy[4].b, 4u);
  SmallVector<Pair, 2> small;
  small.push_back(Pair{7, 8});
  copy = small;
  ASSERT_EQ(copy.size(), 1u);
  EXPECT_EQ(copy[0].b, 8u);
}

}  // namespace
}  // namespace keel::detail
