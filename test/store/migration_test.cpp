#include <sqlite3.h>

#include <vector>

#include "store/migrations.hpp"
#include "store/sqlite_db.hpp"
#include "store_test_util.hpp"

namespace keel::testing {
namespace {

// Runs `sql` on the file with the raw SQLite API (no keel code involved).
void raw_exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  std::string message = error != nullptr ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << message;
}


class MigrationTest : public ::testing::Test {
 protected:
  std::string path() const { return (tmp_.path() / "keel.db").string(); }
  Result<std::unique_ptr<Store>> open() {
    StoreOptions o;
    o.path = path();
    return open_sqlite_store(o);
  }
  TempDir tmp_;
};

TEST_F(MigrationTest, SchemaHasSeveralStepsEndingAtTheCurrentVersion) {
  auto steps = detail::schema_migrations();
  ASSERT_GE(steps.size(), 2u);
  for (size_t i = 0; i < steps.size(); ++i) EXPECT_EQ(steps[i].version, static_cast<int>(i + 1));
  auto store = open();
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  EXPECT_EQ(*(*store)->schema_version(), detail::current_schema_version());
  EXPECT_EQ(raw_int(path(), "PRAGMA application_id"), detail::kKeelApplicationId);
}

TEST_F(MigrationTest, VersionOneDatabaseIsMigratedWithItsDataKept) {
  // A database as the first release left it, built by hand.
  std::string v1 = "BEGIN;" + std::string(detail::schema_migrations()[0].sql) +
                   "PRAGMA user_version = 1;"
                   "INSERT INTO sessions (id, title, workspace, model, created_ms, updated_ms, hidden) "
                   "VALUES ('s_00000000000000aa', 'old session', '/ws', 'm', 10, 20, 0);"
                   "INSERT INTO runs (id, session_id, task, state, started_ms) "
                   "VALUES ('r_00000000000000aa', 's_00000000000000aa', 'old task', 'running', 15);"
                   "INSERT INTO messages (session_id, seq, run_id, role, content, tool_calls, metadata, tokens, "
                   "created_ms) VALUES ('s_00000000000000aa', 1, 'r_00000000000000aa', 'assistant', 'hi', "
                   "'[{\"id\":\"c1\",\"name\":\"fs_read\",\"arguments\":\"{}\"}]', '{\"round\":\"1\"}', 3, 16);"
                   "COMMIT;";
  raw_exec(path(), v1);
  ASSERT_EQ(raw_int(path(), "PRAGMA user_version"), 1);
  ASSERT_EQ(raw_int(path(), "SELECT count(*) FROM sqlite_schema WHERE name = 'memory'"), 0);

  auto store = open();
  ASSERT_TRUE(store.ok()) << store.status().to_string();
  EXPECT_EQ(*(*store)->schema_version(), detail::current_schema_version());
  auto session = (*store)->get_session("s_00000000000000aa");
  ASSERT_TRUE(session.ok()) << session.status().to_string();
  EXPECT_EQ(session->title, "old session");
  EXPECT_EQ(session->message_count, 1);
  auto messages = (*store)->load_messages("s_00000000000000aa");
  ASSERT_TRUE(messages.ok()) << messages.status().to_string();
  ASSERT_EQ(messages->size(), 1u);
  EXPECT_EQ((*messages)[0].message.tool_calls.at(0).name, "fs_read");
  EXPECT_EQ((*messages)[0].message.metadata.at("round"), "1");
  EXPECT_EQ((*store)->find_interrupted_runs()->size(), 1u);
  // The tables of version 2 work.
  ASSERT_TRUE((*store)->memory_write("/ws", "migrated note", "").ok());
  EXPECT_EQ((*store)->memory_search("/ws", "note", 5)->size(), 1u);
  KEEL_ASSERT_OK((*store)->cache_put("tool_result", "k", "v"));
}

TEST_F(MigrationTest, ALaterStepIsAppliedOnTopAndANewerDatabaseIsThenRefused) {
  ASSERT_TRUE(open().ok());
  std::vector<detail::Migration> steps(detail::schema_migrations().begin(), detail::schema_migrations().end());
  int next = detail::current_schema_version() + 1;
  steps.push_back({next, "CREATE TABLE extra (x INTEGER); ALTER TABLE sessions ADD COLUMN pinned INTEGER DEFAULT 0;"});
  {
    auto db = detail::SqliteDb::open(path(), SQLITE_OPEN_READWRITE);
    ASSERT_TRUE(db.ok());
    auto version = detail::check_database(**db, steps);
    ASSERT_TRUE(version.ok()) << version.status().to_string();
    EXPECT_EQ(*version, detail::current_schema_version());
    KEEL_ASSERT_OK(detail::migrate(**db, steps));
    EXPECT_EQ(*detail::read_schema_version(**db), next);
    KEEL_ASSERT_OK(detail::migrate(**db, steps));  // idempotent
  }
  EXPECT_EQ(raw_int(path(), "SELECT count(*) FROM sqlite_schema WHERE name = 'extra'"), 1);

  // This build only knows the current version: it must not touch the newer file.
  auto refused = open();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_EQ(refused.status().message(),
            path() + " has schema version " + std::to_string(next) + ", newer than this keel understands (" +
                std::to_string(detail::current_schema_version()) + "); upgrade keel or use another database");
  EXPECT_EQ(raw_int(path(), "PRAGMA user_version"), next);
}

TEST_F(MigrationTest, AFailingStepLeavesThePreviousVersion) {
  ASSERT_TRUE(open().ok());
  std::vector<detail::Migration> steps(detail::schema_migrations().begin(), detail::schema_migrations().end());
  steps.push_back({detail::current_schema_version() + 1, "CREATE TABLE half_done (x); SELECT no_such_function();"});
  auto db = detail::SqliteDb::open(path(), SQLITE_OPEN_READWRITE);
  ASSERT_TRUE(db.ok());
  Status status = detail::migrate(**db, steps);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("cannot migrate " + path()), std::string::npos) << status.message();
  EXPECT_EQ(*detail::read_schema_version(**db), detail::current_schema_version());
  EXPECT_EQ(raw_int(path(), "SELECT count(*) FROM sqlite_schema WHERE name = 'half_done'"), 0);
}

TEST_F(MigrationTest, ANewerVersionSetByHandIsRefused) {
  ASSERT_TRUE(open().ok());
  raw_exec(path(), "PRAGMA user_version = 99");
  auto refused = open();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("schema version 99"), std::string::npos);
  EXPECT_NE(refused.status().message().find(path()), std::string::npos);
}

TEST_F(MigrationTest, ADatabaseOfAnotherProgramIsRefused) {
  raw_exec(path(), "CREATE TABLE photos (id INTEGER PRIMARY KEY, file TEXT)");
  auto refused = open();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), path() + " is not a keel database (it holds tables of another program)");
  EXPECT_EQ(raw_int(path(), "PRAGMA user_version"), 0);
  EXPECT_EQ(raw_int(path(), "SELECT count(*) FROM sqlite_schema"), 1);

  std::string other = (tmp_.path() / "other.db").string();
  raw_exec(other, "PRAGMA application_id = 42");
  StoreOptions o;
  o.path = other;
  auto foreign = open_sqlite_store(o);
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.status().message().find("is not a keel database"), std::string::npos);
}

}  // namespace
}  // namespace keel::testing
