// parse_json_lenient and unwrap_string_arguments: every repair kind, their combinations, valid
// input left alone, cut-off output refused with a precise message, deep nesting, large inputs.
#include "core/parsing/json/json_repair.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace keel::detail {
namespace {

using nlohmann::json;

struct RepairCase {
  std::string input;
  std::string expected;              // the value, as JSON text
  std::vector<std::string> repairs;  // the exact repair list
};

void expect_repaired(const RepairCase& c) {
  SCOPED_TRACE("input: " + c.input);
  LenientJson r = parse_json_lenient(c.input);
  ASSERT_TRUE(r.value.has_value()) << r.error;
  EXPECT_EQ(*r.value, json::parse(c.expected));
  EXPECT_EQ(r.repairs, c.repairs);
  EXPECT_EQ(r.error, "");
}

void expect_error(const std::string& input, const std::string& error) {
  SCOPED_TRACE("input: " + input);
  LenientJson r = parse_json_lenient(input);
  EXPECT_FALSE(r.value.has_value()) << r.value->dump();
  EXPECT_EQ(r.error, error);
  EXPECT_TRUE(r.repairs.empty());
}

TEST(JsonRepair, ValidJsonHasNoRepairs) {
  const std::vector<std::string> inputs = {
      "{}",
      "[]",
      "\"x\"",
      "12",
      "-0.5e3",
      "true",
      "null",
      "  {\"a\": 1}\n",
      R"({"a": [1, {"b": null}], "c": "it's 'quoted' True, None", "d": "“smart” • inside"})",
      "\xEF\xBB\xBF{\"bom\": 1}",  // nlohmann skips a byte-order mark
  };
  for (const auto& in : inputs) {
    SCOPED_TRACE(in);
    LenientJson r = parse_json_lenient(in);
    ASSERT_TRUE(r.value.has_value()) << r.error;
    EXPECT_EQ(*r.value, json::parse(in));
    EXPECT_TRUE(r.repairs.empty());
    EXPECT_EQ(r.error, "");
  }
}

TEST(JsonRepair, TrailingCommas) {
  const std::vector<RepairCase> cases = {
      {"[1, 2, 3,]", "[1,2,3]", {"removed a trailing comma"}},
      {R"({"a": 1, "b": 2,})", R"({"a":1,"b":2})", {"removed a trailing comma"}},
      {"{\"a\": [1,], \"b\": {\"c\": 2 ,\n},}", R"({"a":[1],"b":{"c":2}})", {"removed 3 trailing commas"}},
      {"[[],\t]", "[[]]", {"removed a trailing comma"}},
  };
  for (const auto& c : cases) expect_repaired(c);
}

TEST(JsonRepair, SingleQuotedStrings) {
  const std::vector<RepairCase> cases = {
      {"{'a': 'b'}", R"({"a":"b"})", {"converted 2 single-quoted strings to double quotes"}},
      {R"(['it\'s'])", R"(["it's"])", {"converted a single-quoted string to double quotes"}},
      {R"({"q": 'say "hi" \"ok\"'})",
       R"({"q":"say \"hi\" \"ok\""})",
       {"converted a single-quoted string to double quotes"}},
      {"{'msg': 'don't stop', 'n': 'l'amour'}",
       R"({"msg":"don't stop","n":"l'amour"})",
       {"converted 4 single-quoted strings to double quotes"}},
      {"[\xE2\x80\x98x\xE2\x80\x99, 'y\xE2\x80\x99]",
       R"(["x","y"])",
       {"converted 2 single-quoted strings to double quotes"}},
  };
  for (const auto& c : cases) expect_repaired(c);
}

TEST(JsonRepair, PythonLiterals) {
  const std::vector<RepairCase> cases = {
      {R"({"a": True})", R"({"a":true})", {"replaced Python literal True with true"}},
      {"[True, False, None]", "[true,false,null]", {"replaced 3 Python literals True/False/None with true/false/null"}},
      {R"({"x": None, "y": "True"})", R"({"x":null,"y":"True"})", {"replaced Python literal None with null"}},
      {"[None, None, false]", "[null,null,false]", {"replaced 2 Python literals None with null"}},
  };
  for (const auto& c : cases) expect_repaired(c);
}

TEST(JsonRepair, UnquotedKeys) {
  const std::vector<RepairCase> cases = {
      {R"({city: "Paris"})", R"({"city":"Paris"})", {"quoted unquoted key 'city'"}},
      {"{a: 1, b_2: 2}", R"({"a":1,"b_2":2})", {"quoted 2 unquoted keys ('a', 'b_2')"}},
      {R"({$id: 1, "x": {first-name : "Al"}})",
       R"({"$id":1,"x":{"first-name":"Al"}})",
       {"quoted 2 unquoted keys ('$id', 'first-name')"}},
      {"{a: 1, b: 2, c: 3, d: 4, e: 5, f: 6}",
       R"({"a":1,"b":2,"c":3,"d":4,"e":5,"f":6})",
       {"quoted 6 unquoted keys ('a', 'b', 'c', 'd', 'e', ...)"}},
      {"{True: 1}", R"({"True":1})", {"quoted unquoted key 'True'"}},
  };
  for (const auto& c : cases) expect_repaired(c);
}

TEST(JsonRepair, ControlCharactersInStrings) {
  const std::vector<RepairCase> cases = {
      {"{\"a\": \"line1\nline2\"}", R"({"a":"line1\nline2"})", {"escaped a raw newline inside a string"}},
      {"[\"a\tb\"]", R"(["a\tb"])", {"escaped a raw tab inside a string"}},
      {std::string("[\"a\x01") + "b\"]", R"(["a\u0001b"])", {"escaped a raw control character inside a string"}},
      {"{\"a\": \"x\ny\tz\r\"}",
       R"({"a":"x\ny\tz\r"})",
       {"escaped 3 raw control characters inside strings (1 newline, 1 tab, 1 other)"}},
      {"['p\n\nq']",
       R"(["p\n\nq"])",
       {"converted a single-quoted string to double quotes",
        "escaped 2 raw control characters inside strings (2 newlines)"}},
  };
  for (const auto& c : cases) expect_repaired(c);
}

TEST(JsonRepair, StrayNonAsciiAndSmartQuotes) {
  const std::vector<RepairCase> cases = {
      {"\xE2\x80\x8B{\"a\": 1}", R"({"a":1})", {"removed a stray non-ASCII character outside strings"}},
      {"[\xE2\x80\xA2 1, \xE2\x80\xA2 2]", "[1,2]", {"removed 2 stray non-ASCII characters outside strings"}},
      {"{\"a\": 1 \xF0\x9F\x98\x80, \"b\": 2}\xC2\xA0",
       R"({"a":1,"b":2})",
       {"removed 2 stray non-ASCII characters outside strings"}},
      {"[1,\xFF 2]", "[1,2]", {"removed a stray non-ASCII character outside strings"}},  // not even UTF-8
      {"{\xE2\x80\x9C"
       "a\xE2\x80\x9D: \xE2\x80\x9C"
       "b\xE2\x80\x9D}",
       R"({"a":"b"})",
       {"replaced smart quotes around 2 strings with plain double quotes"}},
      {"{\xE2\x80\x9Ckey\": \xE2\x80\x9Dv'\xE2\x80\x9C}",
       R"({"key":"v'"})",
       {"replaced smart quotes around 2 strings with plain double quotes"}},
  };
  for (const auto& c : cases) expect_repaired(c);
}

TEST(JsonRepair, QuoteEscapeInDoubleQuotedString) {
  const std::vector<RepairCase> cases = {
      {R"({"a": "it\'s"})", R"({"a":"it's"})", {"replaced the invalid escape \\' with ' inside a string"}},
      {R"(["\'a\'", "b"])", R"(["'a'","b"])", {"replaced 2 invalid escapes \\' with ' inside strings"}},
      {R"(["x\'\n"])", R"(["x'\n"])", {"replaced the invalid escape \\' with ' inside a string"}},
  };
  for (const auto& c : cases) expect_repaired(c);
}

TEST(JsonRepair, ClosesBracketsWhenTheEndIsComplete) {
  const std::vector<RepairCase> cases = {
      {R"({"a": "b")", R"({"a":"b"})", {"closed an unclosed bracket at the end (added \"}\")"}},
      {R"({"a": "b",)",
       R"({"a":"b"})",
       {"removed a trailing comma", "closed an unclosed bracket at the end (added \"}\")"}},
      {R"({"a": [1, 2])", R"({"a":[1,2]})", {"closed an unclosed bracket at the end (added \"}\")"}},
      {R"([{"a": true)", R"([{"a":true}])", {"closed 2 unclosed brackets at the end (added \"}]\")"}},
      {"[1, 2,\n", "[1,2]", {"removed a trailing comma", "closed an unclosed bracket at the end (added \"]\")"}},
      {"{\"a\": {\"b\": null}\n  ", R"({"a":{"b":null}})", {"closed an unclosed bracket at the end (added \"}\")"}},
      // Whitespace after a number shows it ended.
      {"{\"a\": [1, 2 ", R"({"a":[1,2]})", {"closed 2 unclosed brackets at the end (added \"]}\")"}},
  };
  for (const auto& c : cases) expect_repaired(c);
}

TEST(JsonRepair, Combinations) {
  const std::vector<RepairCase> cases = {
      {"{'a': True, 'b': [None, 'x',],}",
       R"({"a":true,"b":[null,"x"]})",
       {"converted 3 single-quoted strings to double quotes", "replaced 2 Python literals True/None with true/null",
        "removed 2 trailing commas"}},
      {"{name: 'Bob', ok: False,",
       R"({"name":"Bob","ok":false})",
       {"quoted 2 unquoted keys ('name', 'ok')", "converted a single-quoted string to double quotes",
        "replaced Python literal False with false", "removed a trailing comma",
        "closed an unclosed bracket at the end (added \"}\")"}},
      {"\xE2\x80\xA2 {note: 'a\nb', \xE2\x80\x9Cq\xE2\x80\x9D: [True,]",
       R"({"note":"a\nb","q":[true]})",
       {"removed a stray non-ASCII character outside strings", "quoted unquoted key 'note'",
        "converted a single-quoted string to double quotes", "escaped a raw newline inside a string",
        "replaced smart quotes around a string with plain double quotes", "replaced Python literal True with true",
        "removed a trailing comma", "closed an unclosed bracket at the end (added \"}\")"}},
  };
  for (const auto& c : cases) expect_repaired(c);
}

TEST(JsonRepair, UnicodeIsPreserved) {
  expect_repaired({"{'名前': '日本語 😀', k: '“quoted” ‘x’', \"é\": \"\\u00e9\\ud83d\\ude00\"}",
                   R"({"名前":"日本語 😀","k":"“quoted” ‘x’","é":"é😀"})",
                   {"converted 3 single-quoted strings to double quotes", "quoted unquoted key 'k'"}});
}

TEST(JsonRepair, CutOffOutputIsAnError) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"a": "hel)", "output was cut off inside a string value starting at offset 6"},
      {R"({"city": "Paris", "note": "the weather is)",
       "output was cut off inside a string value starting at offset 26"},
      {R"({'a': 'b)", "output was cut off inside a string value starting at offset 6"},
      {R"({"a": "x\)", "output was cut off inside a string value starting at offset 6"},
      {R"(["\u12)", "output was cut off inside a string value starting at offset 1"},
      {R"({"ab)", "output was cut off inside a key starting at offset 1"},
      {R"({"a": 1, 'b)", "output was cut off inside a key starting at offset 9"},
      {"{city", "output was cut off inside a key starting at offset 1"},
      {R"({"city")", "output was cut off after key \"city\" at offset 1, before its ':' and value"},
      {"{\"a\": 1, city ", "output was cut off after key \"city\" at offset 9, before its ':' and value"},
      {R"({"city":)",
       "output was cut off after key \"city\" before its value (the text ends after its ':' at offset 7)"},
      {"{\"city\": \n",
       "output was cut off after key \"city\" before its value (the text ends after its ':' at offset 7)"},
      {R"({"a": 12)", "output was cut off inside a number starting at offset 6 (\"12\" may be incomplete)"},
      {R"({"a": [1, 2)", "output was cut off inside a number starting at offset 10 (\"2\" may be incomplete)"},
      {"[1.", "output was cut off inside a number starting at offset 1 (\"1.\" may be incomplete)"},
      {"-", "output was cut off inside a number starting at offset 0 (\"-\" may be incomplete)"},
      {R"({"a": tr)", "output was cut off inside the literal \"tr\" starting at offset 6"},
      {"[fals", "output was cut off inside the literal \"fals\" starting at offset 1"},
      {"[Tru", "output was cut off inside the literal \"Tru\" starting at offset 1"},
      {"[", "output was cut off right after the '[' at offset 0, before its first element"},
      {R"({"a": {)", "output was cut off right after the '{' at offset 6, before its first member"},
  };
  for (const auto& [in, err] : cases) expect_error(in, err);
}

TEST(JsonRepair, OtherErrors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "no JSON value: the text is empty"},
      {" \n\t", "no JSON value: the text is empty"},
      {"\xE2\x80\xA2 \xF0\x9F\x98\x80", "no JSON value: the text holds only stray non-ASCII characters"},
      {"[1 2]", "unexpected number at offset 3; expected ',' or ']'"},
      {R"({"a" 1})", "unexpected number at offset 5; expected ':' after key \"a\""},
      {R"({"a": 1])", "unexpected ']' at offset 7; expected ',' or '}'"},
      {R"({"a": 1}})", "unexpected '}' at offset 8; expected nothing after the complete value"},
      {"[1,,2]", "unexpected ',' at offset 3; expected a value"},
      {R"({"a": })", "unexpected '}' at offset 6; expected a value"},
      {"{1: 2}", "unexpected number at offset 1; expected a key or '}'"},
      {"[1] x", "unexpected 'x' at offset 4; expected nothing after the complete value"},
      {"[#]", "unexpected '#' at offset 1; expected a value or ']'"},
      {"{a: foo}", "invalid JSON at offset 4: syntax error while parsing value - invalid literal"},
      {R"({'a': "x\q"})",
       "invalid JSON at offset 8: syntax error while parsing value - invalid string: forbidden character after "
       "backslash"},
      {"[01]", "invalid JSON at offset 1: syntax error while parsing array - unexpected number literal; expected ']'"},
      {"['\xFF']",
       "invalid JSON at offset 2: syntax error while parsing value - invalid string: ill-formed UTF-8 byte"},
      // Offsets count the caller's text, not the repaired one (two keys gained quotes here).
      {"{a: 1, b: \"\xFF\"}",
       "invalid JSON at offset 11: syntax error while parsing value - invalid string: ill-formed UTF-8 byte"},
      {R"({a: 1, b: "x\ud800"})",
       "invalid JSON at offset 18: syntax error while parsing value - invalid string: surrogate U+D800..U+DBFF must "
       "be followed by U+DC00..U+DFFF"},
  };
  for (const auto& [in, err] : cases) expect_error(in, err);
}

TEST(JsonRepair, DeepNestingIsRefused) {
  expect_error(std::string(10000, '['), "nesting deeper than 512 levels at offset 512");
  expect_error(std::string(513, '[') + std::string(513, ']'), "nesting deeper than 512 levels at offset 512");
  std::string objects;
  for (int i = 0; i < 10000; ++i) objects += "{a:";
  expect_error(objects, "nesting deeper than 512 levels at offset 1536");
  // 512 levels is allowed, valid or repaired.
  LenientJson ok = parse_json_lenient(std::string(512, '[') + std::string(512, ']'));
  ASSERT_TRUE(ok.value.has_value()) << ok.error;
  EXPECT_TRUE(ok.repairs.empty());
  LenientJson closed = parse_json_lenient(std::string(512, '[') + "1]");
  ASSERT_TRUE(closed.value.has_value()) << closed.error;
  EXPECT_EQ(closed.repairs, std::vector<std::string>{"closed 511 unclosed brackets at the end (added \"" +
                                                     std::string(511, ']') + "\")"});
}

TEST(JsonRepair, OneMegabyteInputs) {
  std::string valid = "[";
  std::string broken = "[";
  size_t n = 0;
  while (valid.size() < (1u << 20)) {
    std::string i = std::to_string(n++);
    valid.append(n > 1 ? "," : "").append(R"({"id": )").append(i).append(R"(, "name": "item )").append(i);
    valid += R"(", "ok": true})";
    broken.append("{'id': ").append(i).append(", name: 'item\n").append(i).append("', ok: True,},");
  }
  valid += "]";
  LenientJson v = parse_json_lenient(valid);
  ASSERT_TRUE(v.value.has_value()) << v.error;
  EXPECT_EQ(v.value->size(), n);
  EXPECT_TRUE(v.repairs.empty());

  LenientJson b = parse_json_lenient(broken);
  ASSERT_TRUE(b.value.has_value()) << b.error;
  ASSERT_EQ(b.value->size(), n);
  EXPECT_EQ((*b.value)[n - 1], json::parse(R"({"id": )" + std::to_string(n - 1) + R"(, "name": "item\n)" +
                                           std::to_string(n - 1) + R"(", "ok": true})"));
  const std::string ns = std::to_string(n);
  EXPECT_EQ(
      b.repairs,
      (std::vector<std::string>{
          "converted " + std::to_string(2 * n) + " single-quoted strings to double quotes",
          "quoted " + std::to_string(2 * n) + " unquoted keys ('name', 'ok', 'name', 'ok', 'name', ...)",
          "escaped " + ns + " raw control characters inside strings (" + ns + " newlines)",
          "replaced " + ns + " Python literals True with true", "removed " + std::to_string(n + 1) + " trailing commas",
          "closed an unclosed bracket at the end (added \"]\")"}));

  // Many single quotes followed by long runs of spaces: the closing-quote look-ahead stays linear.
  std::string spaced = "['";
  while (spaced.size() < (1u << 20)) spaced += "a'" + std::string(64, ' ') + "b";
  spaced += "']";
  LenientJson s = parse_json_lenient(spaced);
  ASSERT_TRUE(s.value.has_value()) << s.error;
  EXPECT_EQ((*s.value)[0].get<std::string>().size(), spaced.size() - 4);
}

TEST(JsonRepair, UnwrapStringArguments) {
  LenientJson obj = unwrap_string_arguments(json{{"a", 1}});
  ASSERT_TRUE(obj.value.has_value());
  EXPECT_EQ(*obj.value, (json{{"a", 1}}));
  EXPECT_TRUE(obj.repairs.empty());

  LenientJson str = unwrap_string_arguments(json(R"({"a": 1})"));
  ASSERT_TRUE(str.value.has_value()) << str.error;
  EXPECT_EQ(*str.value, (json{{"a", 1}}));
  EXPECT_EQ(str.repairs, std::vector<std::string>{"arguments were given as an escaped JSON string"});

  LenientJson fixed = unwrap_string_arguments(json("{'a': True}"));
  ASSERT_TRUE(fixed.value.has_value()) << fixed.error;
  EXPECT_EQ(*fixed.value, (json{{"a", true}}));
  EXPECT_EQ(fixed.repairs, (std::vector<std::string>{"arguments were given as an escaped JSON string",
                                                     "converted a single-quoted string to double quotes",
                                                     "replaced Python literal True with true"}));

  const std::vector<std::pair<json, std::string>> errors = {
      {json("[1]"), "arguments were given as a string holding a JSON array, not an object"},
      {json(R"({"a": )"),
       "arguments were given as a string that is not valid JSON: output was cut off after key "
       "\"a\" before its value (the text ends after its ':' at offset 4)"},
      {json(""), "arguments were given as a string that is not valid JSON: no JSON value: the text is empty"},
      {json(5), "arguments must be a JSON object, got number"},
      {json(nullptr), "arguments must be a JSON object, got null"},
      {json::array({1}), "arguments must be a JSON object, got array"},
  };
  for (const auto& [in, err] : errors) {
    LenientJson r = unwrap_string_arguments(in);
    EXPECT_FALSE(r.value.has_value()) << in.dump();
    EXPECT_EQ(r.error, err);
    EXPECT_TRUE(r.repairs.empty());
  }
}

}  // namespace
}  // namespace keel::detail
