#include "tools/schema_validator.hpp"

#include <gtest/gtest.h>

#include "core/text/utf8_text.hpp"

namespace keel::detail {
namespace {

std::shared_ptr<const CompiledSchema> compile(std::string_view text) {
  auto r = CompiledSchema::compile(text);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : nullptr;
}

TEST(SchemaValidatorTest, AcceptsValidArguments) {
  auto s = compile(R"({"type":"object","properties":{"a":{"type":"string"}},"required":["a"]})");
  EXPECT_TRUE(s->validate({{"a", "x"}}, "t").ok());
}

TEST(SchemaValidatorTest, ExplainsEachFailureByPointer) {
  auto s = compile(R"({"type":"object","additionalProperties":false,"required":["mode"],
    "properties":{
      "mode":{"type":"string","enum":["fast","slow"]},
      "count":{"type":"integer","minimum":1,"maximum":10},
      "tags":{"type":"array","items":{"type":"string"}},
      "opt":{"type":"object","properties":{"deep":{"type":["boolean","null"]}}}}})");
  Status st = s->validate(
      nlohmann::json::parse(R"({"mode":"medium","count":0,"tags":["a",2],"opt":{"deep":"yes"},"x/y":1})"), "tool");
  ASSERT_EQ(st.code(), ErrorCode::kInvalidArgument);
  const std::string& m = st.message();
  EXPECT_EQ(m.rfind("invalid arguments for tool: ", 0), 0u) << m;
  EXPECT_NE(m.find(R"(/mode: must be one of ["fast","slow"])"), std::string::npos) << m;
  EXPECT_NE(m.find("/count: must be >= 1"), std::string::npos) << m;
  EXPECT_NE(m.find("/tags/1: expected string, got integer"), std::string::npos) << m;
  EXPECT_NE(m.find("/opt/deep: expected boolean or null, got string"), std::string::npos) << m;
  EXPECT_NE(m.find("/x~1y: unknown property (allowed: count, mode, opt, tags)"), std::string::npos) << m;
  EXPECT_EQ(m.find("Failed to validate"), std::string::npos) << "wrapper errors leak: " << m;

  Status missing = s->validate(nlohmann::json::object(), "tool");
  EXPECT_EQ(missing.message(), "invalid arguments for tool: /mode: missing required property");
}

TEST(SchemaValidatorTest, RejectsBrokenSchemas) {
  EXPECT_FALSE(CompiledSchema::compile("").ok());
  EXPECT_FALSE(CompiledSchema::compile("\"string\"").ok());
  EXPECT_FALSE(CompiledSchema::compile(R"({"type":"object","properties":{"a":{"type":7}}})").ok());
  EXPECT_FALSE(CompiledSchema::compile(R"({"$ref":"http://example.com/remote.json"})").ok());
}

TEST(SchemaValidatorTest, BadPatternIsRejectedAtCompileTime) {
  auto r = CompiledSchema::compile(R"({"type":"object","properties":{"a":{"type":"string","pattern":"(["}}})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("invalid pattern '(['"), std::string::npos) << r.status().message();
  // A property that happens to be called "pattern" is not a pattern.
  EXPECT_TRUE(CompiledSchema::compile(R"({"type":"object","properties":{"pattern":{"type":"string"}}})").ok());
  auto ok = compile(R"({"type":"object","properties":{"a":{"type":"string","pattern":"^[a-z]+$"}}})");
  EXPECT_TRUE(ok->validate({{"a", "abc"}}, "t").ok());
  EXPECT_NE(ok->validate({{"a", "ABC"}}, "t").message().find("/a: failed to match regex"), std::string::npos);
}

TEST(TextUtilTest, Utf8Helpers) {
  EXPECT_EQ(sanitize_utf8("ok"), "ok");
  EXPECT_EQ(sanitize_utf8("\xC3\xA9"), "\xC3\xA9");
  EXPECT_EQ(sanitize_utf8("a\xC3"), "a\xEF\xBF\xBD");
  EXPECT_EQ(sanitize_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(utf8_complete_prefix("ab\xE2\x9C"), 2u);
  EXPECT_EQ(utf8_complete_prefix("ab\xE2\x9C\x93"), 5u);
  EXPECT_EQ(utf8_cut_length("ab\xE2\x9C\x93", 4), 2u);
  EXPECT_TRUE(looks_binary(std::string("a\0b", 3)));
  EXPECT_FALSE(looks_binary("text"));
  EXPECT_EQ(iso8601_utc(0), "1970-01-01T00:00:00Z");
}

}  // namespace
}  // namespace keel::detail
