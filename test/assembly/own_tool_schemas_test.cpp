// keel's own tools are registered with their schemas compiled at their first call; this is what
// lets them: every one of those schemas compiles. And a registry that defers keeps add()'s
// promise late rather than never: a schema that does not compile fails the tool's first call.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "assembly/tool_setup.hpp"
#include "keel/config.hpp"
#include "keel/store/sqlite_store.hpp"
#include "support/temp_dir.hpp"
#include "tools/schema_validator.hpp"

namespace keel {
namespace {

TEST(OwnToolSchemasTest, EveryOwnToolSchemaCompiles) {
  testing::TempDir ws;
  StoreOptions so;
  so.path = ":memory:";
  auto store = open_sqlite_store(so);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  KeelConfig config;
  config.shell_enabled = true;
  config.web_enabled = true;
  ToolRegistry tools;
  ASSERT_TRUE(assembly::register_host_tools(tools, config, ws.path().string(), store->get(), nullptr).ok());
  ASSERT_GE(tools.size(), 25u);
  for (const ToolSpec& spec : tools.specs()) {
    auto compiled = detail::CompiledSchema::compile(spec.parameters_schema);
    EXPECT_TRUE(compiled.ok()) << spec.name << ": " << compiled.status().message();
  }
  // And registration leaves the registry compiling at add() again.
  ToolSpec bad;
  bad.name = "bad_schema";
  bad.parameters_schema = R"({"type":"no-such-type"})";
  EXPECT_EQ(tools.add(make_tool(bad, [](const nlohmann::json&, const ToolContext&) -> Result<std::string> {
                      return std::string("x");
                    })).code(),
            ErrorCode::kInvalidArgument);
}

TEST(OwnToolSchemasTest, ADeferredSchemaIsCompiledAtTheFirstCall) {
  auto tool = [](std::string name, std::string schema) {
    ToolSpec spec;
    spec.name = std::move(name);
    spec.parameters_schema = std::move(schema);
    return make_tool(spec, [](const nlohmann::json&, const ToolContext&) -> Result<std::string> {
      return std::string("x");
    });
  };
  ToolRegistry tools;
  tools.defer_schema_compilation(true);
  ASSERT_TRUE(tools.add(tool("good", R"({"type":"object","properties":{"n":{"type":"integer"}}})")).ok());
  ASSERT_TRUE(tools.add(tool("bad_type", R"({"type":"no-such-type"})")).ok());  // checked at its first call
  EXPECT_EQ(tools.add(tool("not_object", "[1]")).code(), ErrorCode::kInvalidArgument);  // still checked now
  tools.defer_schema_compilation(false);
  EXPECT_TRUE(tools.validate_arguments("good", nlohmann::json{{"n", 1}}).ok());
  Status wrong = tools.validate_arguments("good", nlohmann::json{{"n", "one"}});
  EXPECT_EQ(wrong.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(wrong.message().find("/n"), std::string::npos) << wrong.message();
  for (int i = 0; i < 2; ++i) {  // the same answer every time
    Status bad = tools.validate_arguments("bad_type", nlohmann::json::object());
    EXPECT_EQ(bad.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(bad.message().find("tool 'bad_type'"), std::string::npos) << bad.message();
  }
}

}  // namespace
}  // namespace keel
