// Opening the PostgreSQL store: what a user can get wrong (an unreachable server, another
// program's tables, a newer schema, a role that cannot write) gets an error naming the database,
// and nothing is written; several instances opening an empty database at once create it once.
// A server restart: postgres_outage_test.cpp.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "store/migrations.hpp"
#include "store/pg_db.hpp"
#include "store/postgres_schema.hpp"
#include "store_test_util.hpp"

namespace keel::testing {
namespace {

Result<std::unique_ptr<Store>> open_pg(const std::string& url, bool read_only = false) {
  PostgresStoreOptions o;
  o.url = url;
  o.pool_size = 2;
  o.read_only = read_only;
  o.connect_timeout_ms = 2000;
  return open_postgres_store(o);
}

class PostgresOpenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto schema = PostgresSchema::create();
    ASSERT_TRUE(schema.ok()) << schema.status().to_string();
    schema_.emplace(std::move(schema).value());
  }
  std::optional<PostgresSchema> schema_;
};

TEST(PostgresUrlTest, PasswordsNeverReachMessages) {
  EXPECT_EQ(detail::redact_database_url("postgres://keel:s3cret@db:5432/keel?sslmode=require&password=x"),
            "postgres://keel@db:5432/keel");
  EXPECT_EQ(detail::redact_database_url("postgresql://db/keel"), "postgresql://db/keel");
  EXPECT_EQ(detail::redact_database_url("host=db password=s3cret dbname=keel"), "host=db dbname=keel");
  EXPECT_TRUE(is_postgres_url("postgres://x"));
  EXPECT_TRUE(is_postgres_url("postgresql://x"));
  EXPECT_FALSE(is_postgres_url("/home/me/keel.db"));
  auto [text, n] = detail::to_postgres_parameters("SELECT ?1, '?2', ?12 WHERE a = ?2");
  EXPECT_EQ(text, "SELECT $1, '?2', $12 WHERE a = $2");
  EXPECT_EQ(n, 12);
}

TEST(PostgresSchemaTest, EverySqliteStepTranslatesWithoutSqliteOnlySyntax) {
  for (const detail::Migration& step : detail::schema_migrations()) {
    const std::string sql = detail::postgres_step_sql(step.sql, step.version);
    for (const char* sqlite_only :
         {"PRAGMA", "fts5", "VIRTUAL", "TRIGGER", "WITHOUT ROWID", "BLOB", " REAL", " INTEGER"}) {
      EXPECT_EQ(sql.find(sqlite_only), std::string::npos) << "step " << step.version << ": " << sqlite_only;
    }
  }
  EXPECT_EQ(detail::postgres_step_sql(
                "CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER, x REAL, b BLOB) WITHOUT ROWID;", 99),
            "CREATE TABLE t (id BIGSERIAL PRIMARY KEY, n BIGINT, x DOUBLE PRECISION, b BYTEA) ;");
}

TEST_F(PostgresOpenTest, TheTablesMatchSqlitesColumnForColumn) {
  auto opened = open_pg(schema_->url());
  ASSERT_TRUE(opened.ok()) << opened.status().to_string();
  // Spot checks of the translation: times are 64-bit, ids are generated, the memory search column.
  EXPECT_EQ(
      schema_->query_int("SELECT count(*) FROM information_schema.columns WHERE table_schema = '" + schema_->name() +
                         "' AND table_name = 'messages' AND column_name = 'created_ms' "
                         "AND data_type = 'bigint'"),
      1);
  EXPECT_EQ(schema_->query_int("SELECT count(*) FROM information_schema.columns WHERE table_schema = '" +
                               schema_->name() + "' AND table_name = 'memory' AND column_name = 'words'"),
            1);
  EXPECT_EQ(schema_->query_int("SELECT count(*) FROM information_schema.columns WHERE table_schema = '" +
                               schema_->name() + "' AND table_name = 'skill_proposals' AND column_name = 'public_id'"),
            1);
  // keel's 19 tables (schema 9: server_controls the newest) and keel_schema.
  EXPECT_EQ(schema_->query_int("SELECT count(*) FROM pg_tables WHERE schemaname = '" + schema_->name() + "'"), 20);
}

TEST(PostgresOpenErrors, AnUnreachableServerIsUnavailableNamingTheDatabaseWithoutItsPassword) {
  auto started = std::chrono::steady_clock::now();
  auto opened = open_pg("postgres://keel:s3cret@127.0.0.1:1/keel");
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(opened.status().message().find("postgres://keel@127.0.0.1:1/keel"), std::string::npos)
      << opened.status().message();
  EXPECT_EQ(opened.status().message().find("s3cret"), std::string::npos);
  EXPECT_EQ(opened.status().message().find('\n'), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
}

TEST(PostgresOpenErrors, AMissingDatabaseAndBadOptionsAreClearErrors) {
  auto base = test_postgres_url();
  ASSERT_TRUE(base.ok()) << base.status().to_string();
  std::string missing = base->substr(0, base->rfind('/')) + "/no_such_database";
  auto opened = open_pg(missing);
  ASSERT_FALSE(opened.ok());
  EXPECT_NE(opened.status().message().find("no_such_database"), std::string::npos) << opened.status().message();

  PostgresStoreOptions o;
  o.url = *base;
  o.pool_size = 0;
  EXPECT_EQ(open_postgres_store(o).status().code(), ErrorCode::kInvalidArgument);
  o.pool_size = 1;
  o.statement_timeout_ms = 0;
  EXPECT_EQ(open_postgres_store(o).status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(open_postgres_store(PostgresStoreOptions{}).status().code(), ErrorCode::kInvalidArgument);
}

TEST_F(PostgresOpenTest, AnotherProgramsTablesAreRefusedAndLeftAlone) {
  KEEL_ASSERT_OK(schema_->exec("CREATE TABLE invoices (id INTEGER); INSERT INTO invoices VALUES (7)"));
  auto opened = open_pg(schema_->url());
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_NE(opened.status().message().find("is not a keel database"), std::string::npos) << opened.status().message();
  EXPECT_EQ(schema_->query_int("SELECT count(*) FROM pg_tables WHERE schemaname = '" + schema_->name() + "'"), 1);
  EXPECT_EQ(schema_->query_int("SELECT id FROM invoices"), 7);
}

TEST_F(PostgresOpenTest, ANewerSchemaIsRefusedAndNotTouched) {
  {
    auto opened = open_pg(schema_->url());
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    SessionInfo info;
    ASSERT_TRUE((*opened)->create_session(info).ok());
  }
  KEEL_ASSERT_OK(schema_->exec("UPDATE keel_schema SET version = 99"));
  auto refused = open_pg(schema_->url());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("schema version 99, newer than this keel understands"), std::string::npos)
      << refused.status().message();
  EXPECT_EQ(schema_->query_int("SELECT version FROM keel_schema"), 99);
  EXPECT_EQ(schema_->query_int("SELECT count(*) FROM sessions"), 1);
}

TEST_F(PostgresOpenTest, ARoleThatCannotWriteIsRefusedBeforeAnythingIsWritten) {
  {
    auto opened = open_pg(schema_->url());
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    SessionInfo info;
    info.title = "kept";
    ASSERT_TRUE((*opened)->create_session(info).ok());
  }
  const std::string role = "r_" + schema_->name();
  KEEL_ASSERT_OK(schema_->exec("CREATE ROLE " + role + " LOGIN; GRANT USAGE ON SCHEMA " + schema_->name() + " TO " +
                               role + "; GRANT SELECT ON ALL TABLES IN SCHEMA " + schema_->name() + " TO " + role));
  auto base = test_postgres_url();
  ASSERT_TRUE(base.ok());
  std::string as_reader =
      url_with_schema("postgresql://" + role + "@" + base->substr(base->find('@') + 1), schema_->name());
  auto refused = open_pg(as_reader);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_NE(refused.status().message().find("cannot write keel's tables"), std::string::npos)
      << refused.status().message();

  // Read-only, the same role reads, and every write is refused.
  auto reader = open_pg(as_reader, true);
  ASSERT_TRUE(reader.ok()) << reader.status().to_string();
  auto sessions = (*reader)->list_sessions({});
  ASSERT_TRUE(sessions.ok()) << sessions.status().to_string();
  ASSERT_EQ(sessions->size(), 1u);
  EXPECT_EQ((*sessions)[0].title, "kept");
  EXPECT_EQ((*reader)->create_session({}).status().code(), ErrorCode::kPermissionDenied);
  EXPECT_EQ(schema_->query_int("SELECT count(*) FROM sessions"), 1);
  reader->reset();
  KEEL_ASSERT_OK(schema_->exec("DROP OWNED BY " + role + "; DROP ROLE " + role));
}

TEST_F(PostgresOpenTest, AnEmptySchemaARoleCannotCreateInIsAClearError) {
  const std::string role = "c_" + schema_->name();
  KEEL_ASSERT_OK(
      schema_->exec("CREATE ROLE " + role + " LOGIN; GRANT USAGE ON SCHEMA " + schema_->name() + " TO " + role));
  auto base = test_postgres_url();
  ASSERT_TRUE(base.ok());
  auto refused =
      open_pg(url_with_schema("postgresql://" + role + "@" + base->substr(base->find('@') + 1), schema_->name()));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kPermissionDenied);
  EXPECT_NE(refused.status().message().find("cannot create keel's tables"), std::string::npos)
      << refused.status().message();
  EXPECT_EQ(schema_->query_int("SELECT count(*) FROM pg_tables WHERE schemaname = '" + schema_->name() + "'"), 0);
  KEEL_ASSERT_OK(schema_->exec("DROP OWNED BY " + role + "; DROP ROLE " + role));
}

TEST_F(PostgresOpenTest, InstancesOpeningAnEmptyDatabaseTogetherCreateItOnce) {
  std::vector<std::thread> threads;
  std::vector<Status> results(4, Status::Ok());
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] { results[i] = open_pg(schema_->url()).status(); });
  }
  for (auto& t : threads) t.join();
  for (const Status& s : results) EXPECT_TRUE(s.ok()) << s.to_string();
  EXPECT_EQ(schema_->query_int("SELECT version FROM keel_schema"), 9);
}

TEST_F(PostgresOpenTest, TwoInstancesAppendingToOneSessionGetContiguousSeqs) {
  auto a = open_pg(schema_->url());
  auto b = open_pg(schema_->url());
  ASSERT_TRUE(a.ok() && b.ok());
  auto sid = (*a)->create_session({});
  ASSERT_TRUE(sid.ok());
  std::vector<std::thread> threads;
  for (Store* s : {a->get(), b->get(), a->get(), b->get()}) {
    threads.emplace_back([s, &sid] {
      for (int i = 0; i < 25; ++i) EXPECT_TRUE(s->append_message(*sid, "", Message::user("m"), 0).ok());
    });
  }
  for (auto& t : threads) t.join();
  auto messages = (*a)->load_messages(*sid);
  ASSERT_TRUE(messages.ok());
  ASSERT_EQ(messages->size(), 100u);
  for (size_t i = 0; i < messages->size(); ++i) EXPECT_EQ((*messages)[i].seq, static_cast<int64_t>(i + 1));
}

}  // namespace
}  // namespace keel::testing
