// Counts from providers' JSON numbers: floats truncated, nothing out of int64's range (a cast of
// such a float is undefined behaviour, which the sanitizer build reports).
#include "llm/json_numbers.hpp"

#include <gtest/gtest.h>

namespace keel::detail {
namespace {

TEST(JsonNumbersTest, CountsAreIntegersTruncatedFractionsOrZero) {
  using nlohmann::json;
  EXPECT_EQ(number_as_count(json::parse("12")), 12);
  EXPECT_EQ(number_as_count(json::parse("-3")), -3);
  EXPECT_EQ(number_as_count(json::parse("12.9")), 12);
  EXPECT_EQ(number_as_count(json::parse("9223372036854775807")), INT64_MAX);
  EXPECT_EQ(number_as_count(json::parse("9223372036854775808")), 0);  // unsigned, beyond int64
  EXPECT_EQ(number_as_count(json::parse("18446744073709551615")), 0);
  EXPECT_EQ(number_as_count(json::parse("99999999999999999999")), 0);  // a float beyond int64
  EXPECT_EQ(number_as_count(json::parse("1e300")), 0);
  EXPECT_EQ(number_as_count(json::parse("-1e300")), 0);
  EXPECT_EQ(number_as_count(json::parse("\"12\"")), 0);
  EXPECT_EQ(number_as_count(json::parse("null")), 0);
}

}  // namespace
}  // namespace keel::detail
