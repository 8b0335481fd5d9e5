#include "keel/core/gbnf_grammar.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <initializer_list>

namespace keel {
namespace {

// With KEEL_GBNF_DUMP_DIR set, grammars are written there (NAME.gbnf) to check them with
// llama.cpp's parser outside the tests.
void dump(const std::string& name, const std::string& gbnf) {
  const char* dir = std::getenv("KEEL_GBNF_DUMP_DIR");
  if (dir == nullptr) return;
  std::string path = dir;
  path.append("/");
  path.append(name);
  path.append(".gbnf");
  std::ofstream(path) << gbnf;
}

std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (auto p : parts) out.append(p);
  return out;
}

GbnfRules rules(std::string_view schema) {
  Result<GbnfRules> r = json_schema_gbnf(schema, "x");
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  if (!r.ok()) return {};
  EXPECT_EQ(r->root, "x");
  return *r;
}

// Wraps rules into a grammar whose root is the value, for the dump.
void dump_rules(const std::string& name, const GbnfRules& r) {
  dump(name, cat({"root ::= ", r.root, "\n", r.text}));
}

constexpr const char* kChar = R"(x-char ::= [^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} ))";
constexpr const char* kWs = R"(x-ws ::= ( " " | "\n" [ \t]{0,16} )?)";
constexpr const char* kInteger = R"(x-integer ::= "-"? ( "0" | [1-9] [0-9]{0,15} ))";

std::string lines(std::initializer_list<std::string_view> ls) {
  std::string out;
  for (auto l : ls) {
    out.append(l);
    out.push_back('\n');
  }
  return out;
}

TEST(GbnfSchemaTest, FreeString) {
  GbnfRules r = rules(R"({"type":"string"})");
  dump_rules("free_string", r);
  EXPECT_EQ(r.text, lines({"x ::= x-string", R"(x-string ::= "\"" x-char* "\"")", kChar}));
}

TEST(GbnfSchemaTest, ObjectWithRequiredFirstThenOptionals) {
  GbnfRules r = rules(R"({"type":"object","properties":{
      "a":{"type":"integer"},
      "b":{"enum":["x","y"]},
      "c":{"type":"array","items":{"type":"string","maxLength":8},"minItems":1,"maxItems":3}},
    "required":["b"]})");
  dump_rules("object_required", r);
  EXPECT_EQ(r.text,
            lines({R"(x ::= "{" x-ws "\"b\"" x-ws ":" x-ws x-b ( x-ws "," x-ws "\"a\"" x-ws ":" x-ws x-integer )?)"
                   R"( ( x-ws "," x-ws "\"c\"" x-ws ":" x-ws x-c )? x-ws "}")",
                   R"(x-b ::= "\"x\"" | "\"y\"")", R"(x-c-item ::= "\"" x-char{0,8} "\"")",
                   R"(x-c ::= "[" x-ws x-c-item ( x-ws "," x-ws x-c-item ){0,2} x-ws "]")", kChar, kInteger, kWs}));
}

TEST(GbnfSchemaTest, ObjectWithOnlyOptionalMembers) {
  GbnfRules r = rules(R"({"type":"object","properties":{"a":{"type":"boolean"},"b":{"type":["string","null"]}}})");
  dump_rules("object_optional", r);
  EXPECT_EQ(r.text, lines({R"(x ::= "{" x-ws ( x-a-kv ( x-ws "," x-ws x-b-kv )? | x-b-kv )? x-ws "}")",
                           "x-b ::= x-string | x-null", R"(x-a-kv ::= "\"a\"" x-ws ":" x-ws x-boolean)",
                           R"(x-b-kv ::= "\"b\"" x-ws ":" x-ws x-b)", R"(x-string ::= "\"" x-char* "\"")", kChar,
                           R"(x-boolean ::= "true" | "false")", R"(x-null ::= "null")", kWs}));
}

TEST(GbnfSchemaTest, RecursiveDefsReference) {
  GbnfRules r = rules(R"({"$defs":{"node":{"type":"object","properties":{"v":{"type":"number"},
      "next":{"$ref":"#/$defs/node"}},"required":["v"]}},"$ref":"#/$defs/node"})");
  dump_rules("defs_recursive", r);
  EXPECT_EQ(r.text,
            lines({"x ::= x-node",
                   R"(x-node ::= "{" x-ws "\"v\"" x-ws ":" x-ws x-number)"
                   R"( ( x-ws "," x-ws "\"next\"" x-ws ":" x-ws x-node )? x-ws "}")",
                   R"(x-number ::= x-integer ( "." [0-9]{1,16} )? ( [eE] [-+]? [0-9]{1,4} )?)", kInteger, kWs}));
}

TEST(GbnfSchemaTest, DefinitionsReferenceAndNestedStructure) {
  GbnfRules r = rules(R"({"definitions":{"Point":{"type":"object","properties":{"lat":{"type":"number"},
      "lon":{"type":"number"}},"required":["lon","lat"],"additionalProperties":false}},
    "type":"object","properties":{
      "route":{"type":"array","items":{"$ref":"#/definitions/Point"},"minItems":2},
      "name":{"type":"string","minLength":1,"maxLength":40},
      "mode":{"const":"walk"},
      "meta":{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}},"required":["tags"]}},
    "required":["name","route","meta"]})");
  dump_rules("definitions_nested", r);
  // Required members in declared order: route, name, meta; then the optional mode.
  size_t route = r.text.find(R"("\"route\"")");
  size_t name = r.text.find(R"("\"name\"")");
  size_t meta = r.text.find(R"("\"meta\"")");
  size_t mode = r.text.find(R"("\"mode\"")");
  ASSERT_NE(route, std::string::npos);
  EXPECT_LT(route, name);
  EXPECT_LT(name, meta);
  EXPECT_LT(meta, mode);
  EXPECT_NE(r.text.find(R"(( x-ws "," x-ws "\"mode\"" x-ws ":" x-ws "\"walk\"" )?)"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find(R"(x-route ::= "[" x-ws x-point ( x-ws "," x-ws x-point ){1,} x-ws "]")"), std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find(R"(x-point ::= "{" x-ws "\"lat\"" x-ws ":" x-ws x-number x-ws "," x-ws "\"lon\"")"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find(R"(x-name ::= "\"" x-char{1,40} "\"")"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find(R"(x-meta-tags ::= "[" x-ws ( x-string ( x-ws "," x-ws x-string )* )? x-ws "]")"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find(R"(x-meta ::= "{" x-ws "\"tags\"" x-ws ":" x-ws x-meta-tags x-ws "}")"), std::string::npos)
      << r.text;
}

TEST(GbnfSchemaTest, AnyOfKeepsSiblingKeywords) {
  GbnfRules r = rules(R"({"type":"object","properties":{"id":{"type":"integer"},"slug":{"type":"string"}},
    "anyOf":[{"required":["id"]},{"required":["slug"]}]})");
  dump_rules("any_of", r);
  EXPECT_NE(r.text.find("x ::= x-0 | x-1\n"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find(R"(x-0 ::= "{" x-ws "\"id\"" x-ws ":" x-ws x-integer ( x-ws "," x-ws "\"slug\"")"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find(R"(x-1 ::= "{" x-ws "\"slug\"" x-ws ":" x-ws x-string ( x-ws "," x-ws "\"id\"")"),
            std::string::npos)
      << r.text;
  GbnfRules one = rules(R"({"oneOf":[{"type":"integer"},{"enum":[1.5, null, "a b"]}]})");
  EXPECT_EQ(one.text, lines({"x ::= x-integer | x-1", R"(x-1 ::= "1.5" | "null" | "\"a b\"")", kInteger}));
}

TEST(GbnfSchemaTest, LengthsItemsAndMaps) {
  EXPECT_EQ(rules(R"({"type":"string","minLength":3})").text, lines({R"(x ::= "\"" x-char{3,} "\"")", kChar}));
  EXPECT_EQ(rules(R"({"type":"string","maxLength":0})").text, lines({R"(x ::= "\"" "\"")"}));
  EXPECT_EQ(rules(R"({"type":"string","minLength":2,"maxLength":2})").text,
            lines({R"(x ::= "\"" x-char{2} "\"")", kChar}));
  EXPECT_EQ(rules(R"({"type":"array","maxItems":0})").text, lines({R"(x ::= "[" x-ws "]")", kWs}));
  EXPECT_EQ(rules(R"({"type":"array","items":{"type":"integer"},"maxItems":1})").text,
            lines({R"(x ::= "[" x-ws ( x-integer )? x-ws "]")", kInteger, kWs}));
  EXPECT_EQ(rules(R"({"type":"object","additionalProperties":false})").text, lines({R"(x ::= "{" x-ws "}")", kWs}));
  EXPECT_EQ(rules(R"({"type":"object","properties":{}})").text, lines({R"(x ::= "{" x-ws "}")", kWs}));
  EXPECT_EQ(rules(R"({"type":"object","additionalProperties":{"type":"integer"}})").text,
            lines({R"(x ::= "{" x-ws ( x-string x-ws ":" x-ws x-integer ( x-ws "," x-ws x-string x-ws ":" x-ws)"
                   R"( x-integer )* )? x-ws "}")",
                   R"(x-string ::= "\"" x-char* "\"")", kChar, kInteger, kWs}));
}

TEST(GbnfSchemaTest, UnsupportedKeywordsAreIgnored) {
  std::string plain = rules(R"({"type":"string"})").text;
  EXPECT_EQ(rules(R"({"type":"string","pattern":"^[a-z]+$","format":"email"})").text, plain);
  EXPECT_EQ(rules(R"({"type":"integer","minimum":0,"multipleOf":5})").text, rules(R"({"type":"integer"})").text);
  EXPECT_EQ(rules(R"({"$ref":"https://example.com/s.json"})").text, rules("{}").text);
}

TEST(GbnfSchemaTest, FreeValues) {
  GbnfRules r = rules("true");
  dump_rules("free_value", r);
  EXPECT_EQ(r.text, rules("{}").text);
  EXPECT_TRUE(rules(R"({"type":"object"})").text.starts_with("x ::= x-object\n"));
  for (const char* p : {"x-value ::= ", "x-object ::= ", "x-array ::= ", "x-string ::= ", "x-number ::= ",
                        "x-boolean ::= ", "x-null ::= ", "x-ws ::= "}) {
    EXPECT_NE(r.text.find(p), std::string::npos) << p;
  }
  EXPECT_TRUE(r.text.starts_with("x ::= x-value\n"));
}

TEST(GbnfSchemaTest, RuleNamesAreSanitisedAndUnique) {
  Result<GbnfRules> r =
      json_schema_gbnf(R"({"type":"object","properties":{"string":{"type":"boolean"},)"
                       R"("A b":{"type":"object","properties":{"q":{"const":1}}}},"required":["string","A b"]})",
                       "My Tool.v2");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->root, "my-tool-v2");
  dump_rules("sanitised", *r);
  // A property named like a primitive does not take the primitive's name.
  EXPECT_NE(r->text.find(R"("\"string\"" my-tool-v2-ws ":" my-tool-v2-ws my-tool-v2-boolean)"), std::string::npos)
      << r->text;
  EXPECT_NE(r->text.find("my-tool-v2-a-b ::= "), std::string::npos) << r->text;
  EXPECT_NE(r->text.find(R"("," my-tool-v2-ws "\"A b\"" my-tool-v2-ws ":" my-tool-v2-ws my-tool-v2-a-b )"),
            std::string::npos)
      << r->text;
}

TEST(GbnfSchemaTest, EscapesLiterals) {
  GbnfRules r = rules(R"({"enum":["a\"q","back\\slash","line\nbreak","é"]})");
  dump_rules("escapes", r);
  EXPECT_EQ(r.text, lines({R"(x ::= "\"a\\\"q\"" | "\"back\\\\slash\"" | "\"line\\nbreak\"" | "\"é\"")"}));
}

TEST(GbnfSchemaTest, RejectsBadSchemas) {
  struct Case {
    const char* schema;
    const char* says;
  };
  for (const Case& c : {Case{"{\"type\":", "not valid JSON"}, Case{"[1,2]", "object or a boolean, not array"},
                        Case{"\"string\"", "object or a boolean, not string"}, Case{"false", "accepts no value"},
                        Case{R"({"$ref":"#/definitions/Missing"})", "'#/definitions/Missing' names nothing"},
                        Case{R"({"type":"strnig"})", "unknown JSON Schema type 'strnig'"},
                        Case{R"({"properties":{"a":{"enum":[]}}})", "empty enum"},
                        Case{R"({"properties":{"a":7}})", "not number (rule x-a)"}}) {
    Result<GbnfRules> r = json_schema_gbnf(c.schema, "x");
    ASSERT_FALSE(r.ok()) << c.schema;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().message();
  }
}

std::vector<ToolSpec> grammar_tools() {
  std::vector<ToolSpec> tools(2);
  tools[0].name = "get_weather";
  tools[0].parameters_schema =
      R"({"type":"object","properties":{"city":{"type":"string"},"unit":{"enum":["c","f"]}},"required":["city"]})";
  tools[1].name = "fs.list";
  tools[1].parameters_schema = R"({"type":"object","properties":{}})";
  return tools;
}

TEST(ToolGrammarTest, HermesSyntaxExactGrammar) {
  std::vector<ToolSpec> tools = grammar_tools();
  tools.resize(1);
  Result<ToolGrammar> g = tool_call_grammar(tools, call_syntax(ChatFamily::kChatML), ToolChoice::kAuto);
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  dump("tool_hermes_one", g->gbnf);
  EXPECT_EQ(g->triggers, std::vector<std::string>{"<tool_call>"});
  EXPECT_EQ(g->gbnf,
            lines({"root ::= block ( json-ws block ){0,15}",
                   R"(tool0-get-weather ::= "{" json-ws "\"city\"" json-ws ":" json-ws json-string)"
                   R"( ( json-ws "," json-ws "\"unit\"" json-ws ":" json-ws tool0-get-weather-unit )? json-ws "}")",
                   R"(tool0-get-weather-unit ::= "\"c\"" | "\"f\"")",
                   R"(call-0 ::= "{" json-ws "\"name\"" json-ws ":" json-ws "\"get_weather\"" json-ws "," json-ws)"
                   R"( "\"arguments\"" json-ws ":" json-ws tool0-get-weather json-ws "}")",
                   "call ::= call-0", R"(block ::= "<tool_call>" json-ws call json-ws "</tool_call>")",
                   R"(json-string ::= "\"" json-char* "\"")",
                   R"(json-char ::= [^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} ))",
                   R"(json-ws ::= ( " " | "\n" [ \t]{0,16} )?)"}));
}

TEST(ToolGrammarTest, CallsPerReplyAndStringLengthCanBeCapped) {
  std::vector<ToolSpec> tools = grammar_tools();
  tools.resize(1);
  Result<ToolGrammar> one = tool_call_grammar(tools, call_syntax(ChatFamily::kChatML), ToolChoice::kRequired, 1, 24);
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE(one->triggers.empty());  // required: not lazy
  EXPECT_NE(one->gbnf.find("root ::= block ( json-ws block ){0,0}\n"), std::string::npos) << one->gbnf;
  EXPECT_NE(one->gbnf.find(R"(json-string ::= "\"" json-char{0,24} "\"")"), std::string::npos) << one->gbnf;
  Result<ToolGrammar> clamped = tool_call_grammar(tools, call_syntax(ChatFamily::kChatML), ToolChoice::kAuto, 99);
  ASSERT_TRUE(clamped.ok());
  EXPECT_NE(clamped->gbnf.find("root ::= block ( json-ws block ){0,15}\n"), std::string::npos);
  EXPECT_NE(clamped->gbnf.find(R"(json-string ::= "\"" json-char* "\"")"), std::string::npos);
  Result<std::string> out = json_output_grammar(R"({"type":"string","minLength":3})", 10);
  ASSERT_TRUE(out.ok());
  EXPECT_NE(out->find(R"(json-char{3,10})"), std::string::npos) << *out;
}

TEST(ToolGrammarTest, EveryFamilyNamesEveryTool) {
  std::vector<ToolSpec> tools = grammar_tools();
  for (ChatFamily f : {ChatFamily::kChatML, ChatFamily::kLlama3, ChatFamily::kMistral, ChatFamily::kGemma}) {
    CallSyntax syntax = call_syntax(f);
    for (ToolChoice choice : {ToolChoice::kAuto, ToolChoice::kRequired}) {
      Result<ToolGrammar> g = tool_call_grammar(tools, syntax, choice);
      ASSERT_TRUE(g.ok()) << g.status().to_string();
      std::string name = cat({chat_family_name(f), choice == ToolChoice::kAuto ? "_auto" : "_required"});
      dump(cat({"tool_", name}), g->gbnf);
      EXPECT_TRUE(g->gbnf.starts_with("root ::= ")) << name;
      EXPECT_NE(g->gbnf.find(R"("\"get_weather\"")"), std::string::npos) << name;
      EXPECT_NE(g->gbnf.find(R"("\"fs.list\"")"), std::string::npos) << name;
      EXPECT_NE(g->gbnf.find(R"(tool1-fs-list ::= "{" json-ws "}")"), std::string::npos) << name;
      EXPECT_NE(g->gbnf.find(cat({"\"\\\"", syntax.arguments_key, "\\\"\""})), std::string::npos) << name;
      EXPECT_NE(g->gbnf.find("call ::= call-0 | call-1\n"), std::string::npos) << name;
      EXPECT_NE(g->gbnf.find(cat({"\"", syntax.open, "\""})), std::string::npos) << name;
      if (choice == ToolChoice::kAuto) {
        EXPECT_EQ(g->triggers, std::vector<std::string>{syntax.open}) << name;
      } else {
        EXPECT_TRUE(g->triggers.empty()) << name;
      }
    }
  }
  Result<ToolGrammar> mistral = tool_call_grammar(tools, call_syntax(ChatFamily::kMistral), ToolChoice::kRequired);
  ASSERT_TRUE(mistral.ok());
  EXPECT_TRUE(mistral->gbnf.starts_with(
      R"(root ::= "[TOOL_CALLS]" json-ws "[" json-ws call ( json-ws "," json-ws call ){0,15} json-ws "]")"
      "\n"));
  Result<ToolGrammar> llama = tool_call_grammar(tools, call_syntax(ChatFamily::kLlama3), ToolChoice::kAuto);
  ASSERT_TRUE(llama.ok());
  EXPECT_NE(llama->gbnf.find(R"(block ::= "<|python_tag|>" json-ws call)"
                             "\n"),
            std::string::npos);
}

TEST(ToolGrammarTest, Errors) {
  std::vector<ToolSpec> none;
  Result<ToolGrammar> empty = tool_call_grammar(none, call_syntax(ChatFamily::kChatML), ToolChoice::kAuto);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(empty.status().message().find("at least one tool"), std::string::npos);

  std::vector<ToolSpec> tools = grammar_tools();
  tools[1].parameters_schema = "{not json";
  Result<ToolGrammar> bad = tool_call_grammar(tools, call_syntax(ChatFamily::kChatML), ToolChoice::kAuto);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().message().starts_with("tool 'fs.list': the JSON Schema is not valid JSON"))
      << bad.status().message();

  Result<ToolGrammar> no_open = tool_call_grammar(grammar_tools(), CallSyntax{}, ToolChoice::kRequired);
  ASSERT_FALSE(no_open.ok());
  EXPECT_NE(no_open.status().message().find("no opening text"), std::string::npos);
}

TEST(JsonOutputGrammarTest, WrapsTheValue) {
  Result<std::string> g = json_output_grammar(R"({"type":"object","properties":{"ok":{"type":"boolean"}},
      "required":["ok"]})");
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  dump("json_output", *g);
  EXPECT_EQ(*g, lines({"root ::= json-ws value json-ws",
                       R"(value ::= "{" json-ws "\"ok\"" json-ws ":" json-ws json-boolean json-ws "}")",
                       R"(json-boolean ::= "true" | "false")", R"(json-ws ::= ( " " | "\n" [ \t]{0,16} )?)"}));
  Result<std::string> bad = json_output_grammar("");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("not valid JSON"), std::string::npos);
}

}  // namespace
}  // namespace keel
