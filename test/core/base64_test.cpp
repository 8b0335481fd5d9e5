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

TEST(Base64, DecodesTheRfcVectorsBack) {
  for (const char* text : {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) {
    std::optional<std::string> back = base64_decode(base64_encode(text));
    ASSERT_TRUE(back.has_value()) << text;
    EXPECT_EQ(*back, text);
  }
  EXPECT_EQ(base64_decode("SGVsbG8sIOS4lueVjA=="), "Hello, \xe4\xb8\x96\xe7\x95\x8c");  // MCP's example
  EXPECT_EQ(base64_decode("+/+/"), std::string("\xfb\xff\xbf", 3));
}

TEST(Base64, RefusesWhatIsNotBase64) {
  EXPECT_FALSE(base64_decode("Zg").has_value());      // no padding
  EXPECT_FALSE(base64_decode("Z===").has_value());    // too much padding
  EXPECT_FALSE(base64_decode("Zg=a").has_value());    // data after padding
  EXPECT_FALSE(base64_decode("Zm9v\n").has_value());  // whitespace
  EXPECT_FALSE(base64_decode("-_-_").has_value());    // the URL alphabet
}

TEST(PercentEncode, KeepsUnreservedAndWhatIsAsked) {
  EXPECT_EQ(percent_encode("a b/c~d"), "a%20b%2Fc~d");
  EXPECT_EQ(percent_encode("a b/c", "/"), "a%20b/c");
  EXPECT_EQ(percent_encode("\xc3\xa9"), "%C3%A9");
}

}  // namespace
}  // namespace keel::detail
