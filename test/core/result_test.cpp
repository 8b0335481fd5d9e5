#include "keel/result.hpp"

#include <gtest/gtest.h>

namespace keel {
namespace {

Result<int> parse_digit(char c) {
  if (c < '0' || c > '9') return Status::InvalidArgument(std::string("not a digit: ") + c);
  return c - '0';
}

Result<int> add_digits(char a, char b) {
  KEEL_ASSIGN_OR_RETURN(int x, parse_digit(a));
  KEEL_ASSIGN_OR_RETURN(int y, parse_digit(b));
  return x + y;
}

Status check_digit(char c) {
  KEEL_TRY(parse_digit(c));
  return Status::Ok();
}

TEST(ResultTest, ValueAndErrorPropagate) {
  Result<int> ok = add_digits('3', '4');
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 7);
  Result<int> bad = add_digits('3', 'x');
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "not a digit: x");
  EXPECT_EQ(bad.status().to_string(), "invalid_argument: not a digit: x");
  EXPECT_EQ(bad.value_or(-1), -1);
}

TEST(ResultTest, TryReturnsFirstError) {
  EXPECT_TRUE(check_digit('5').ok());
  Status s = check_digit('z');
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(error_code_name(ErrorCode::kDeadlineExceeded), "deadline_exceeded");
}

}  // namespace
}  // namespace keel
