// Tests of the memory tools against a real in-memory SQLite store.
#include "keel/memory_tools.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "keel/store/sqlite_store.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;

std::unique_ptr<Store> open_store(const std::string& path, bool read_only = false) {
  StoreOptions o;
  o.path = path;
  o.read_only = read_only;
  auto store = open_sqlite_store(o);
  EXPECT_TRUE(store.ok()) << store.status().to_string();
  return store.ok() ? std::move(store).value() : nullptr;
}

class MemoryToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = open_store(":memory:");
    ASSERT_NE(store_, nullptr);
    Status s = register_memory_tools(tools_, *store_, "/work/project");
    ASSERT_TRUE(s.ok()) << s.to_string();
  }
  // Validates like the executor does, then runs the tool.
  Result<std::string> call(const std::string& name, const json& args) {
    KEEL_TRY(tools_.validate_arguments(name, args));
    Tool* tool = tools_.find(name);
    if (tool == nullptr) return Status::NotFound(name);
    return tool->execute(args, ToolContext{});
  }
  static size_t line_count(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

  std::unique_ptr<Store> store_;  // declared first: the registry's tools refer to it
  ToolRegistry tools_;
};

TEST_F(MemoryToolsTest, RegistersThreeToolsWithTheirMetadata) {
  ASSERT_EQ(tools_.size(), 3u);
  for (const ToolSpec& s : tools_.specs()) {
    EXPECT_EQ(s.risk, Risk::kLow) << s.name;
    EXPECT_FALSE(s.cacheable) << s.name;
    json schema = json::parse(s.parameters_schema);
    EXPECT_EQ(schema["type"], "object");
    EXPECT_EQ(schema["additionalProperties"], false);
    const bool write = s.name == "memory_write";
    EXPECT_EQ(s.read_only, !write) << s.name;
    EXPECT_EQ(s.concurrency_safe, !write) << s.name;
  }
  EXPECT_NE(tools_.find("memory_write"), nullptr);
  EXPECT_NE(tools_.find("memory_search"), nullptr);
  EXPECT_NE(tools_.find("memory_list"), nullptr);
  EXPECT_FALSE(register_memory_tools(tools_, *store_, "/elsewhere").ok()) << "names are taken";
}

TEST_F(MemoryToolsTest, WriteThenSearchAndList) {
  auto saved = call("memory_write", {{"text", "  build with ninja, not make\n"}, {"tags", "build"}});
  ASSERT_TRUE(saved.ok()) << saved.status().to_string();
  EXPECT_EQ(*saved, "saved note 1");
  ASSERT_TRUE(call("memory_write", {{"text", "tests live in\ntest/"}}).ok());

  auto found = call("memory_search", {{"query", "ninja"}});
  ASSERT_TRUE(found.ok()) << found.status().to_string();
  EXPECT_EQ(*found, "1. [build] build with ninja, not make\n");

  auto listed = call("memory_list", json::object());
  ASSERT_TRUE(listed.ok());
  EXPECT_NE(listed->find("2. tests live in test/\n"), std::string::npos) << *listed;
  EXPECT_NE(listed->find("1. [build] build with ninja"), std::string::npos) << *listed;

  auto notes = store_->memory_list("/work/project", 0);
  ASSERT_TRUE(notes.ok());
  ASSERT_EQ(notes->size(), 2u);
  EXPECT_EQ(notes->back().text, "build with ninja, not make") << "stored trimmed";
}

TEST_F(MemoryToolsTest, SearchReadsSharedNotesButNotOtherWorkspaces) {
  ASSERT_TRUE(store_->memory_write("", "shared: answer in French", "style").ok());
  ASSERT_TRUE(store_->memory_write("/other", "other: answer in German", "style").ok());
  auto found = call("memory_search", {{"query", "answer"}});
  ASSERT_TRUE(found.ok());
  EXPECT_NE(found->find("French"), std::string::npos) << *found;
  EXPECT_EQ(found->find("German"), std::string::npos) << *found;
  auto listed = call("memory_list", json::object());
  ASSERT_TRUE(listed.ok());
  EXPECT_NE(listed->find("French"), std::string::npos);
  EXPECT_EQ(listed->find("German"), std::string::npos);
}

TEST_F(MemoryToolsTest, LimitsDefaultAndAreBounded) {
  for (int i = 0; i < 25; ++i) ASSERT_TRUE(call("memory_write", {{"text", "alpha fact " + std::to_string(i)}}).ok());
  auto five = call("memory_search", {{"query", "alpha"}});
  ASSERT_TRUE(five.ok());
  EXPECT_EQ(line_count(*five), 5u);
  auto twenty = call("memory_search", {{"query", "alpha"}, {"limit", 20}});
  ASSERT_TRUE(twenty.ok());
  EXPECT_EQ(line_count(*twenty), 20u);
  EXPECT_FALSE(call("memory_search", {{"query", "alpha"}, {"limit", 21}}).ok());
  auto listed = call("memory_list", json::object());
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(line_count(*listed), 20u);
  auto three = call("memory_list", {{"limit", 3}});
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(*three, "25. alpha fact 24\n24. alpha fact 23\n23. alpha fact 22\n");
}

TEST_F(MemoryToolsTest, BadArgumentsAreActionableErrors) {
  auto missing = call("memory_write", json::object());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("text"), std::string::npos) << missing.status().message();
  auto blank = call("memory_write", {{"text", "   \n"}});
  ASSERT_FALSE(blank.ok());
  EXPECT_EQ(blank.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(blank.status().message().find("not empty"), std::string::npos);
  auto huge = call("memory_write", {{"text", std::string(9000, 'a')}});
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("shorter"), std::string::npos);
  EXPECT_FALSE(call("memory_search", {{"query", 3}}).ok());
  auto none = call("memory_search", {{"query", "kubernetes"}});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->rfind("no notes match \"kubernetes\"", 0), 0u) << *none;
  auto empty_list = call("memory_list", json::object());
  ASSERT_TRUE(empty_list.ok());
  EXPECT_NE(empty_list->find("no notes"), std::string::npos);
}

TEST(MemoryToolsStoreErrorTest, AReadOnlyDatabaseIsAToolError) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "keel.db").string();
  ASSERT_NE(open_store(path), nullptr);  // create the schema, then close
  std::unique_ptr<Store> store = open_store(path, /*read_only=*/true);
  ASSERT_NE(store, nullptr);
  ToolRegistry tools;
  ASSERT_TRUE(register_memory_tools(tools, *store, "/ws").ok());
  auto saved = tools.find("memory_write")->execute({{"text", "remember me"}}, ToolContext{});
  ASSERT_FALSE(saved.ok());
  EXPECT_NE(saved.status().message().find("could not save the note"), std::string::npos) << saved.status().message();
  auto listed = tools.find("memory_list")->execute(json::object(), ToolContext{});
  EXPECT_TRUE(listed.ok()) << "reads still work";
}

}  // namespace
}  // namespace keel
