// base64 and base64url against RFC 4648 §10's test vectors, and percent_encode.
#include "core/text/base64.hpp"

#include <gtest/gtest.h>

namespace keel::detail {
namespace {

TEST(Base64, Rfc4648Vectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
}

TEST(Base64, UrlAlphabetHasNoPadding) {
  EXPECT_EQ(base64url_encode("f"), "Zg");
  EXPECT_EQ(base64url_encode(std::string("\xfb\xff\xbf", 3)), "-_-_");
  EXPECT_EQ(base64_encode(std::string("\xfb\xff\xbf", 3)), "+/+/");
}

TEST(PercentEncode, KeepsUnreservedAndWhatIsAsked) {
  EXPECT_EQ(percent_encode("a b/c~d"), "a%20b%2Fc~d");
  EXPECT_EQ(percent_encode("a b/c", "/"), "a%20b/c");
  EXPECT_EQ(percent_encode("\xc3\xa9"), "%C3%A9");
}

}  // namespace
}  // namespace keel::detail
