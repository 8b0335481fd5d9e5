#include "core/parsing/json/json_text.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

namespace keel::detail {
namespace {

std::string escaped(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

TEST(JsonTextTest, EscapesWhatJsonRequires) {
  EXPECT_EQ(escaped("plain"), "\"plain\"");
  EXPECT_EQ(escaped("a\"b\\c\n\t\r"), R"("a\"b\\c\n\t\r")");
  EXPECT_EQ(escaped(std::string("x\x01y", 3)), R"("x\u0001y")");
  EXPECT_EQ(escaped("héllo ✓ 😀"), "\"héllo ✓ 😀\"");  // valid UTF-8 passes through
}

// The string a reader decodes from escaped(s).
std::string decoded(std::string_view s) { return nlohmann::json::parse(escaped(s)).get<std::string>(); }

TEST(JsonTextTest, InvalidUtf8IsReplaced) {
  const std::string r = "\xef\xbf\xbd";  // U+FFFD, one per byte that starts no well-formed sequence
  EXPECT_EQ(decoded("a\xff" "b"), "a" + r + "b");
  EXPECT_EQ(decoded("\xc3"), r);                  // cut-off sequence
  EXPECT_EQ(decoded("\xed\xa0\x80"), r + r + r);  // surrogate
  EXPECT_EQ(decoded("\xc0\xaf"), r + r);          // overlong
  EXPECT_EQ(decoded("\x01\xff"), "\x01" + r) << "escapes and replacements together";
}

TEST(JsonTextTest, RandomBytesAlwaysGiveParseableJsonThatRoundTripsValidText) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string s(rng() % 40, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 256);
    std::string q = escaped(s);
    ASSERT_TRUE(nlohmann::json::accept(q)) << q;
    std::string ascii = "k" + std::to_string(rng()) + "\"\\\n é";
    EXPECT_EQ(nlohmann::json::parse(escaped(ascii)).get<std::string>(), ascii);
  }
}

TEST(JsonTextTest, ValidatesValues) {
  EXPECT_TRUE(is_json_value(R"({"type":"object"})"));
  EXPECT_FALSE(is_json_value(R"({"type":)"));
}

}  // namespace
}  // namespace keel::detail
