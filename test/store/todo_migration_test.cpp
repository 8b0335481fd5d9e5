// A database at schema version 2 (before todos) opens, migrates to the current version (todos came in 3) and keeps its data.
#include <sqlite3.h>

#include "store/migrations.hpp"
#include "store_test_util.hpp"

namespace keel::testing {
namespace {

TEST(TodoMigrationTest, VersionTwoDatabaseGainsTodosAndKeepsItsData) {
  TempDir tmp;
  const std::string path = (tmp.path() / "keel.db").string();
  {
    // Version 2 exactly as its steps define it, built by hand with some data in it.
    auto steps = detail::schema_migrations();
    ASSERT_GE(steps.size(), 3u);
    ASSERT_EQ(steps[1].version, 2);
    std::string v2 = "BEGIN;" + std::string(steps[0].sql) + std::string(steps[1].sql) +
                     "PRAGMA user_version = 2;"
                     "INSERT INTO sessions (id, title, workspace, model, created_ms, updated_ms, hidden) "
                     "VALUES ('s_00000000000000bb', 'v2 session', '/ws', 'm', 10, 20, 0);"
                     "INSERT INTO memory (workspace, text, tags, created_ms, updated_ms) "
                     "VALUES ('/ws', 'use ninja to build', 'build', 30, 30);"
                     "COMMIT;";
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    const int rc = sqlite3_exec(db, v2.c_str(), nullptr, nullptr, &error);
    const std::string message = error != nullptr ? error : "";
    sqlite3_free(error);
    sqlite3_close(db);
    ASSERT_EQ(rc, SQLITE_OK) << message;
  }
  ASSERT_EQ(raw_int(path, "PRAGMA user_version"), 2);
  ASSERT_EQ(raw_int(path, "SELECT count(*) FROM sqlite_schema WHERE name = 'todos'"), 0);

  StoreOptions o;
  o.path = path;
  auto store = open_sqlite_store(o);
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  EXPECT_EQ(*(*store)->schema_version(), detail::current_schema_version());
  EXPECT_GE(detail::current_schema_version(), 3);
  auto session = (*store)->get_session("s_00000000000000bb");
  ASSERT_TRUE(session.ok()) << session.status().to_string();
  EXPECT_EQ(session->title, "v2 session");
  auto notes = (*store)->memory_search("/ws", "ninja", 5);
  ASSERT_TRUE(notes.ok());
  ASSERT_EQ(notes->size(), 1u);
  EXPECT_EQ((*notes)[0].note.text, "use ninja to build");

  NewTodo t;
  t.text = "first todo after the upgrade";
  auto added = (*store)->todo_add("/ws", t);
  ASSERT_TRUE(added.ok()) << added.status().to_string();
  EXPECT_EQ((*store)->todo_list("/ws", TodoQuery{})->size(), 1u);
  store->reset();
  EXPECT_EQ(raw_int(path, "PRAGMA user_version"), detail::current_schema_version());
  EXPECT_EQ(raw_int(path, "SELECT count(*) FROM todos"), 1);
}

}  // namespace
}  // namespace keel::testing
