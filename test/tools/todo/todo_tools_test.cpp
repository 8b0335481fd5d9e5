// The todo tools against a real SQLite store: schemas and metadata, the JSON they answer with,
// errors the model can act on, and todos that outlive the registry and the process's store.
#include "keel/todo_tools.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "keel/store/sqlite_store.hpp"
#include "support/temp_dir.hpp"

namespace keel {
namespace {

using nlohmann::json;

class TodoToolsTest : public ::testing::Test {
 protected:
  void SetUp() override { open("/work/project"); }

  void open(const std::string& workspace) {
    tools_ = std::make_unique<ToolRegistry>();
    store_.reset();
    StoreOptions o;
    o.path = tmp_.path() / "keel.db";
    auto store = open_sqlite_store(o);
    ASSERT_TRUE(store.ok()) << store.status().to_string();
    store_ = std::move(store).value();
    Status s = register_todo_tools(*tools_, *store_, workspace);
    ASSERT_TRUE(s.ok()) << s.to_string();
  }

  // Validates like the executor does, then runs the tool.
  Result<std::string> call(const std::string& name, const json& args) {
    KEEL_TRY(tools_->validate_arguments(name, args));
    return tools_->find(name)->execute(args, ToolContext{});
  }
  json call_json(const std::string& name, const json& args) {
    auto r = call(name, args);
    EXPECT_TRUE(r.ok()) << name << ": " << r.status().to_string();
    return r.ok() ? json::parse(*r) : json();
  }

  testing::TempDir tmp_;
  std::unique_ptr<Store> store_;         // declared before the registry: its tools refer to it
  std::unique_ptr<ToolRegistry> tools_;
};

TEST_F(TodoToolsTest, RegistersThreeToolsWithTheirMetadata) {
  ASSERT_EQ(tools_->size(), 3u);
  for (const ToolSpec& s : tools_->specs()) {
    EXPECT_EQ(s.risk, Risk::kLow) << s.name;
    EXPECT_FALSE(s.cacheable) << s.name;
    const bool list = s.name == "todo_list";
    EXPECT_EQ(s.read_only, list) << s.name;
    EXPECT_EQ(s.concurrency_safe, list) << s.name;
    EXPECT_EQ(json::parse(s.parameters_schema)["additionalProperties"], false) << s.name;
  }
  for (const char* name : {"todo_list", "todo_add", "todo_complete"}) EXPECT_NE(tools_->find(name), nullptr);
}

TEST_F(TodoToolsTest, AddListCompleteRoundTrip) {
  const json a = call_json("todo_add", {{"text", "  write the parser  "}, {"priority", "high"}, {"notes", "RE2"}});
  ASSERT_TRUE(a.contains("added")) << a;
  const int64_t id = a["added"]["id"];
  EXPECT_EQ(a["added"]["text"], "write the parser");
  EXPECT_EQ(a["added"]["status"], "open");
  EXPECT_EQ(a["added"]["priority"], "high");
  EXPECT_EQ(a["added"]["notes"], "RE2");
  EXPECT_TRUE(a["added"]["created"].get<std::string>().ends_with("Z"));
  call_json("todo_add", {{"text", "document it"}});

  json open = call_json("todo_list", json::object());
  EXPECT_EQ(open["open"], 2);
  EXPECT_EQ(open["done"], 0);
  ASSERT_EQ(open["todos"].size(), 2u);
  EXPECT_EQ(open["todos"][0]["text"], "write the parser");
  EXPECT_FALSE(open["todos"][1].contains("priority"));

  const json done = call_json("todo_complete", {{"id", id}});
  EXPECT_EQ(done["completed"]["id"], id);
  EXPECT_EQ(done["completed"]["status"], "done");
  EXPECT_TRUE(done["completed"].contains("completed"));

  open = call_json("todo_list", {{"status", "open"}});
  ASSERT_EQ(open["todos"].size(), 1u);
  EXPECT_EQ(open["todos"][0]["text"], "document it");
  const json finished = call_json("todo_list", {{"status", "done"}});
  ASSERT_EQ(finished["todos"].size(), 1u);
  EXPECT_EQ(finished["todos"][0]["id"], id);
  const json all = call_json("todo_list", {{"status", "all"}});
  EXPECT_EQ(all["todos"].size(), 2u);
  EXPECT_EQ(all["open"], 1);
  EXPECT_EQ(all["done"], 1);
}

TEST_F(TodoToolsTest, ErrorsTellTheModelWhatToDo) {
  const json a = call_json("todo_add", {{"text", "only one"}});
  const int64_t id = a["added"]["id"];
  auto unknown = call("todo_complete", {{"id", id + 100}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(unknown.status().message(), "no todo " + std::to_string(id + 100) + " in this workspace; its open todos are " +
                                            std::to_string(id) + " (todo_list shows them)");
  ASSERT_TRUE(call("todo_complete", {{"id", id}}).ok());
  auto twice = call("todo_complete", {{"id", id}});
  EXPECT_EQ(twice.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_NE(twice.status().message().find("already done"), std::string::npos);

  auto blank = call("todo_add", {{"text", "   "}});
  EXPECT_EQ(blank.status().code(), ErrorCode::kInvalidArgument);
  auto long_text = call("todo_add", {{"text", std::string(3000, 'x')}});
  EXPECT_NE(long_text.status().message().find("put details in \"notes\""), std::string::npos);
  EXPECT_EQ(call("todo_add", {{"text", "x"}, {"priority", "urgent"}}).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(call("todo_list", {{"status", "later"}}).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(call("todo_complete", {{"id", "3"}}).status().code(), ErrorCode::kInvalidArgument);

  const json none = call_json("todo_list", json::object());
  EXPECT_EQ(none["todos"].size(), 0u);
  EXPECT_EQ(none["note"], "none match; status \"all\" shows every todo");
}

TEST_F(TodoToolsTest, TodosPersistAndStayInTheirWorkspace) {
  call_json("todo_add", {{"text", "survive a restart"}});
  open("/work/project");  // a new store connection and registry, as a new run would have
  json listed = call_json("todo_list", json::object());
  ASSERT_EQ(listed["todos"].size(), 1u);
  EXPECT_EQ(listed["todos"][0]["text"], "survive a restart");

  open("/work/other");
  listed = call_json("todo_list", {{"status", "all"}});
  EXPECT_EQ(listed["todos"].size(), 0u);
  EXPECT_EQ(listed["note"], "no todos yet; todo_add adds one");
}

}  // namespace
}  // namespace keel
