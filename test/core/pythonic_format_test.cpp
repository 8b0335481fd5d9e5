// The Python call reader shared by the pythonic, gemma and llama3 formats: literal conversion,
// error positions, and what the corpus cannot assert (deep nesting, large input).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/parsing/formats/python_call.hpp"
#include "keel/core/universal_parser.hpp"

namespace keel {
namespace {

using detail::PyCalls;
using detail::read_python_call;
using detail::read_python_call_list;
using nlohmann::json;

json args_of(std::string_view text) {
  PyCalls r = read_python_call(text, 0);
  EXPECT_EQ(r.error, "") << text;
  return r.calls.empty() ? json() : r.calls[0].arguments;
}

TEST(PythonCallTest, ConvertsLiterals) {
  EXPECT_EQ(args_of("f(a=1, b=-2.5, c=1e3, d=.5, e=7., f=1_000, g=+3, h=007)"),
            json::parse(R"({"a":1,"b":-2.5,"c":1000.0,"d":0.5,"e":7.0,"f":1000,"g":3,"h":7})"));
  EXPECT_EQ(args_of("f(t=True, n=None, l=[1, [2]], tu=(1, 'x'), one=(5), e=(), d={'k': {'n': 'v'}},)"),
            json::parse(R"({"t":true,"n":null,"l":[1,[2]],"tu":[1,"x"],"one":5,"e":[],"d":{"k":{"n":"v"}}})"));
}

TEST(PythonCallTest, ConvertsStrings) {
  EXPECT_EQ(args_of(R"(f(a='it\'s', b="q\"q", c='\x41\u00e9\U0001F600', d='\ud83d\ude00', e='\101', f='\q'))"),
            json::parse(R"({"a":"it's","b":"q\"q","c":"Aé😀","d":"😀","e":"A","f":"\\q"})"));
  EXPECT_EQ(args_of("f(raw=r'C:\\new\\table', tri='''a\n'b'\nc''', u=u\"x\")"),
            json::parse(R"({"raw":"C:\\new\\table","tri":"a\n'b'\nc","u":"x"})"));
}

TEST(PythonCallTest, DottedNamesAndLists) {
  PyCalls r = read_python_call("  brave_search.call(query='x')", 0);
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].name, "brave_search.call");
  EXPECT_EQ(r.end, 30u);
  PyCalls list = read_python_call_list("[a(), b(x=1),]", 0);
  ASSERT_EQ(list.calls.size(), 2u);
  EXPECT_EQ(list.calls[1].arguments, json::parse(R"({"x":1})"));
}

TEST(PythonCallTest, LenientReadingsAreListedOnce) {
  PyCalls r = read_python_call("f(a=true, b=false, c=null, d='x\ny')", 0);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.calls[0].arguments, json::parse(R"({"a":true,"b":false,"c":null,"d":"x\ny"})"));
  EXPECT_EQ(r.repairs.size(), 2u);
}

TEST(PythonCallTest, ErrorsSayWhatAndWhere) {
  struct Case {
    const char* text;
    const char* error;
    bool cut_off;
  };
  for (const Case& c : {
           Case{"f(a=1", "cut off at offset 5 where ',' or ')' in the call to 'f' was expected", true},
           Case{"f(a='x", "cut off inside the string that starts at offset 4", true},
           Case{"f(1)", "positional argument at offset 2 in the call to 'f'", false},
           Case{"f(a=1, a=2)", "keyword 'a' is repeated at offset 7", false},
           Case{"f(a=x)", "'x' at offset 4 is not a Python literal", false},
           Case{"f(a=g(1))", "'g' at offset 4 is not a Python literal", false},
           Case{"f(a=0x1F)", "unsupported number literal at offset 4", false},
           Case{"f(a={1: 2})", "the dict key at offset 5 is not a string", false},
           Case{"f(a='\\ud800')", "invalid code point escape at offset 5", false},
           Case{"f(a=[1 2])", "expected ',' or ']' in a list at offset 7, found '2'", false},
           Case{"f(a=\xC3)", "expected a value at offset 4, found '?'", false},
       }) {
    PyCalls r = read_python_call(c.text, 0);
    EXPECT_TRUE(r.calls.empty()) << c.text;
    EXPECT_NE(r.error.find(c.error), std::string::npos) << c.text << " -> " << r.error;
    EXPECT_EQ(r.cut_off, c.cut_off) << c.text;
    EXPECT_NO_THROW((void)json(r.error).dump());
  }
  EXPECT_EQ(read_python_call_list("[]", 0).error, "the list at offset 0 is empty");
  EXPECT_NE(read_python_call_list("[f(), 1]", 0).error.find("expected a function name at offset 6"), std::string::npos);
}

TEST(PythonCallTest, DeepNestingIsRefused) {
  std::string deep = "f(a=" + std::string(10000, '[') + std::string(10000, ']') + ")";
  PyCalls r = read_python_call(deep, 0);
  EXPECT_NE(r.error.find("nested deeper than 64 levels"), std::string::npos);
}

TEST(PythonicFormatTest, LargeInputIsLinearAndSafe) {
  std::vector<ToolSpec> tools(1);
  tools[0].name = "f";
  auto parser = std::move(UniversalToolCallParser::create("pythonic")).value();
  std::string list = "[";
  for (int i = 0; i < 20000; ++i) list += "f(a=[1, {'b': 'c'}], s='x'), ";
  list += "]";
  EXPECT_EQ(parser->parse_full(list, tools).calls.size(), 20000u);
  for (std::string_view piece : {"[", "[f(", "[f(a=[", "<|python_start|>", "'", "[f(a='\\"}) {
    std::string text;
    while (text.size() < (1u << 18)) text.append(piece);
    ParseOutcome out = parser->parse_full(text, tools);
    EXPECT_TRUE(out.calls.empty());
  }
}

}  // namespace
}  // namespace keel
