#include "keel/tool_registry.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace keel {
namespace {

std::unique_ptr<Tool> tool_named(std::string name, std::string schema = R"({"type":"object","properties":{}})") {
  ToolSpec spec;
  spec.name = std::move(name);
  spec.description = "test tool";
  spec.parameters_schema = std::move(schema);
  return make_tool(spec, [](const nlohmann::json&, const ToolContext&) -> Result<std::string> { return std::string("ok"); });
}

TEST(ToolRegistryTest, AddsAndFindsInOrder) {
  ToolRegistry registry;
  ASSERT_TRUE(registry.add(tool_named("b_tool")).ok());
  ASSERT_TRUE(registry.add(tool_named("a.tool-2")).ok());
  EXPECT_EQ(registry.size(), 2u);
  ASSERT_NE(registry.find("a.tool-2"), nullptr);
  EXPECT_EQ(registry.find("a.tool-2")->spec().name, "a.tool-2");
  EXPECT_EQ(registry.find("missing"), nullptr);
  auto specs = registry.specs();
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].name, "b_tool");
  EXPECT_EQ(specs[1].name, "a.tool-2");
}

TEST(ToolRegistryTest, RejectsDuplicates) {
  ToolRegistry registry;
  ASSERT_TRUE(registry.add(tool_named("dup")).ok());
  Status s = registry.add(tool_named("dup"));
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(s.message().find("already registered"), std::string::npos) << s.message();
  EXPECT_EQ(registry.size(), 1u);
}

TEST(ToolRegistryTest, RejectsBadNames) {
  ToolRegistry registry;
  for (std::string bad : {std::string(""), std::string("has space"), std::string("slash/name"),
                          std::string("unicodé"), std::string(65, 'a')}) {
    Status s = registry.add(tool_named(bad));
    EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument) << "name: " << bad;
  }
  EXPECT_TRUE(registry.add(tool_named(std::string(64, 'a'))).ok());
  EXPECT_EQ(registry.add(nullptr).code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(registry.size(), 1u);
}

TEST(ToolRegistryTest, RejectsBadSchemas) {
  ToolRegistry registry;
  Status not_json = registry.add(tool_named("t1", "{not json"));
  EXPECT_EQ(not_json.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(not_json.message().find("not valid JSON"), std::string::npos) << not_json.message();

  Status not_object = registry.add(tool_named("t2", "[1,2]"));
  EXPECT_EQ(not_object.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(not_object.message().find("JSON object"), std::string::npos) << not_object.message();

  Status bad_type = registry.add(tool_named("t3", R"({"type":"object","properties":{"a":{"type":"strng"}}})"));
  EXPECT_EQ(bad_type.code(), ErrorCode::kInvalidArgument) << bad_type.message();

  Status bad_required = registry.add(tool_named("t4", R"({"type":"object","required":"a"})"));
  EXPECT_EQ(bad_required.code(), ErrorCode::kInvalidArgument) << bad_required.message();
  EXPECT_EQ(registry.size(), 0u);
}

TEST(ToolRegistryTest, ValidatesArgumentsWithTheCompiledSchema) {
  ToolRegistry registry;
  ASSERT_TRUE(registry
                  .add(tool_named("t", R"({"type":"object","properties":{"n":{"type":"integer"}},
                                           "required":["n"],"additionalProperties":false})"))
                  .ok());
  EXPECT_TRUE(registry.validate_arguments("t", nlohmann::json{{"n", 3}}).ok());
  Status s = registry.validate_arguments("t", nlohmann::json{{"n", "3"}});
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "invalid arguments for t: /n: expected integer, got string");
  EXPECT_EQ(registry.validate_arguments("nope", nlohmann::json::object()).code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace keel
