// The strict JSON scanner (json_scan.hpp) and the text readers/writers (json_view.hpp): acceptance
// identical to nlohmann::json::parse on hand-picked and generated inputs, surrogates, numbers,
// the depth limit, and walking/compacting validated text.
#include "core/parsing/json/json_scan.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/parsing/json/json_view.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;

bool nlohmann_accepts(std::string_view text) {
  return !json::parse(text, nullptr, false).is_discarded();
}

TEST(JsonScan, AcceptsWhatNlohmannAccepts) {
  const std::vector<std::string> valid = {
      "{}",
      "[]",
      " [ ] ",
      "0",
      "-0",
      "1.5e-3",
      "1E+2",
      "-12.0",
      "true",
      "false",
      "null",
      "\"\"",
      R"({"a": [1, {"b": null}], "c": "x\"y\\z\/\b\f\n\r\t"})",
      R"("\u00e9\u20AC\ud83d\ude00")",                 // BMP escapes and a surrogate pair
      "\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\x7F\"",  // UTF-8 up to four bytes, DEL
      "\xEF\xBB\xBF{\"bom\": 1}",                      // a byte-order mark
      std::string("{\"a\": 1}\0trailing", 17),         // a NUL ends the text for nlohmann
      "1.7976931348623157e308",
      "123456789012345678901234567890",
      "1e-400",
      "0.1e309",
      "18446744073709551616",
      "-9223372036854775809",
      std::string(400, '1') + "e-300",
  };
  for (const auto& v : valid) {
    SCOPED_TRACE(v);
    EXPECT_TRUE(nlohmann_accepts(v));
    EXPECT_TRUE(scan_strict_json(v).ok);
  }
  const std::vector<std::string> invalid = {
      "",
      " ",
      "{",
      "[1,]",
      "{\"a\":1,}",
      "{a:1}",
      "'x'",
      "01",
      "-",
      "-a",
      "1.",
      ".5",
      "1e",
      "1e+",
      "+1",
      "tru",
      "nul",
      "True",
      "[1 2]",
      "{\"a\" 1}",
      "{\"a\":}",
      "[1]]",
      "1 2",
      "\"abc",
      "\"a\nb\"",
      "\"\\x41\"",
      "\"\\u12\"",
      "\"\\ud800\"",
      "\"\\udc00\"",
      "\"\\ud800\\u0041\"",
      "\"\\ud800x\"",
      "\"\xC0\x80\"",
      "\"\xED\xA0\x80\"",
      "\"\xF4\x90\x80\x80\"",
      "\"\xE2\x82\"",
      "\xEF\xBB{}",
      std::string("\0{}", 3),
      " \xEF\xBB\xBF{}",
      "1e309",
      "-1e400",
      std::string(400, '9'),
      "[1e999]",
      "{\"a\": 2e308}",
  };
  for (const auto& v : invalid) {
    SCOPED_TRACE(v);
    EXPECT_FALSE(nlohmann_accepts(v));
    EXPECT_FALSE(scan_strict_json(v).ok);
  }
}

TEST(JsonScan, ValueSpanExcludesSpaceAndBom) {
  StrictJson s = scan_strict_json("\xEF\xBB\xBF  {\"a\": 1}\n");
  ASSERT_TRUE(s.ok);
  EXPECT_EQ(s.begin, 5u);
  EXPECT_EQ(s.end, 13u);
}

TEST(JsonScan, DepthLimit) {
  EXPECT_TRUE(scan_strict_json(std::string(512, '[') + std::string(512, ']')).ok);
  EXPECT_FALSE(scan_strict_json(std::string(513, '[') + std::string(513, ']')).ok);
  std::string objects;
  for (int i = 0; i < 512; ++i) objects += "{\"a\":";
  EXPECT_TRUE(scan_strict_json(objects + "1" + std::string(512, '}')).ok);
  EXPECT_FALSE(scan_strict_json(std::string(100000, '[')).ok);
}

TEST(JsonScan, IntegerClassification) {
  EXPECT_TRUE(json_number_is_integer("0"));
  EXPECT_TRUE(json_number_is_integer("-0"));
  EXPECT_TRUE(json_number_is_integer("18446744073709551615"));
  EXPECT_FALSE(json_number_is_integer("18446744073709551616"));
  EXPECT_TRUE(json_number_is_integer("-9223372036854775808"));
  EXPECT_FALSE(json_number_is_integer("-9223372036854775809"));
  EXPECT_FALSE(json_number_is_integer("1.0"));
  EXPECT_FALSE(json_number_is_integer("1e2"));
  for (const char* n : {"0", "-0", "18446744073709551615", "18446744073709551616", "-9223372036854775808",
                        "-9223372036854775809", "1.0", "1e2", "42"}) {
    EXPECT_EQ(json_number_is_integer(n), json::parse(n).is_number_integer()) << n;
  }
}

// Random mutations of JSON-ish text: the scanner and nlohmann agree on every one.
TEST(JsonScan, AgreesWithNlohmannOnGeneratedInputs) {
  const std::vector<std::string> atoms = {"{",         "}",   "[",        "]",           ",",
                                          ":",         " ",   "\"a\"",    "\"\\u00e9\"", "\"\\ud83d",
                                          "\\ude00\"", "1",   "-",        "0",           ".5",
                                          "e9",        "E-2", "true",     "null",        "\"",
                                          "\\",        "\\n", "\xC3\xA9", "\xC3",        "\xED\xA0\x80",
                                          "\n",        "x",   "\"k\":"};
  std::mt19937 rng(7);
  for (int n = 0; n < 100000; ++n) {
    std::string text;
    const int len = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < len; ++i) text += atoms[rng() % atoms.size()];
    ASSERT_EQ(scan_strict_json(text).ok, nlohmann_accepts(text)) << text;
  }
}

TEST(JsonView, WalksObjectsAndArrays) {
  const std::string text = R"({"name": "get_weather", "n\u0061me": "last", "args": {"a": [1, "x,}"]}, "e": []})";
  ASSERT_TRUE(scan_strict_json(text).ok);
  JsonView v(text);
  EXPECT_TRUE(v.is_object());
  ASSERT_TRUE(v.find("name"));
  EXPECT_EQ(v.find("name")->str(), "last");  // the last of a repeated key, as parsers keep it
  EXPECT_EQ(v.distinct_keys(7), 3u);
  EXPECT_EQ(v.distinct_keys(1), 2u);
  EXPECT_EQ(v.find("args")->raw(), R"({"a": [1, "x,}"]})");
  EXPECT_TRUE(v.find("e")->empty());
  EXPECT_FALSE(v.find("args")->empty());
  EXPECT_FALSE(v.find("missing"));
  std::vector<std::string> elements;
  JsonView::Items it = v.find("args")->find("a")->items();
  JsonView key, value;
  while (it.next(key, value)) elements.emplace_back(value.raw());
  EXPECT_EQ(elements, (std::vector<std::string>{"1", "\"x,}\""}));
  EXPECT_EQ(JsonView(R"("a\"b\\c\/\u00e9\ud83d\ude00\n")").str(), "a\"b\\c/\xC3\xA9\xF0\x9F\x98\x80\n");
  EXPECT_STREQ(JsonView("12").type_name(), "number");
  EXPECT_STREQ(JsonView("false").type_name(), "boolean");
}

TEST(JsonView, CompactsAndEscapes) {
  std::string out;
  append_compact_json(out, "{ \"a b\" : [ 1 , \"x \\\" y\" ] ,\n\"c\":{} }");
  EXPECT_EQ(out, R"({"a b":[1,"x \" y"],"c":{}})");
  std::string s;
  EXPECT_TRUE(append_quoted_json(s, std::string("q\"\\\n\t\x01\x7F\xC3\xA9", 9)));
  EXPECT_EQ(s, "\"q\\\"\\\\\\n\\t\\u0001\x7F\xC3\xA9\"");
  EXPECT_EQ(json::parse(s).get<std::string>(), std::string("q\"\\\n\t\x01\x7F\xC3\xA9", 9));
  std::string bad;
  EXPECT_FALSE(append_quoted_json(bad, "\xFF"));
  JsonObjectWriter w;
  w.key("k");
  w.string_value("v");
  w.key("n");
  w.raw_value("1");
  EXPECT_TRUE(w.valid());
  EXPECT_EQ(std::move(w).finish(), R"({"k":"v","n":1})");
}

}  // namespace
}  // namespace keel::detail
