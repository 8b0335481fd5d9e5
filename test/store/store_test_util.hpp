// Helpers shared by the store tests: a database with a hand-driven clock, on each engine.
//
// StoreTest is parameterised by engine: a suite built on it declares its tests with TEST_P and
// ends with KEEL_STORE_ENGINES(Suite), so every test runs against a SQLite file in a temporary
// folder and against a schema of its own on a real PostgreSQL server.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include <sqlite3.h>

#include "keel/store/postgres_store.hpp"
#include "keel/store/sqlite_store.hpp"
#include "support/postgres_server.hpp"
#include "support/temp_dir.hpp"

#define KEEL_ASSERT_OK(expr)                                                  \
  do {                                                                        \
    ::keel::Status keel_assert_status_ = ::keel::detail::to_status(expr);     \
    ASSERT_TRUE(keel_assert_status_.ok()) << keel_assert_status_.to_string(); \
  } while (0)

namespace keel::testing {

// The first column of the first row of `sql`, read straight from the file (read-only); -1 when
// there is none. For checking what the store wrote without going through it.
inline int64_t raw_int(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  int64_t n = -1;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW) {
    n = sqlite3_column_int64(stmt, 0);
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return n;
}

enum class StoreEngine { kSqlite, kPostgres };

inline std::string store_engine_name(const ::testing::TestParamInfo<StoreEngine>& info) {
  return info.param == StoreEngine::kSqlite ? "Sqlite" : "Postgres";
}

class StoreTest : public ::testing::TestWithParam<StoreEngine> {
 protected:
  StoreTest() {
    if (engine() == StoreEngine::kPostgres) {
      auto schema = PostgresSchema::create();
      if (!schema.ok()) {
        ADD_FAILURE() << schema.status().to_string();
        return;
      }
      schema_.emplace(std::move(schema).value());
    }
    reopen();
  }

  StoreEngine engine() const { return GetParam(); }
  bool postgres() const { return engine() == StoreEngine::kPostgres; }

  // Options for a store on db_path() whose clock reads clock_ (on PostgreSQL: on this test's
  // schema, with the same cache scopes, clock and read_only).
  StoreOptions options() {
    StoreOptions o;
    o.path = db_path();
    o.now_ms = [this] { return clock_; };
    return o;
  }
  void reopen() { reopen(options()); }
  void reopen(const StoreOptions& o) {
    store_.reset();
    auto opened = open(o);
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    store_ = std::move(opened).value();
  }
  // Another store on the same database (this engine's).
  Result<std::unique_ptr<Store>> open(const StoreOptions& o) {
    if (!postgres()) return open_sqlite_store(o);
    if (!schema_) return Status::FailedPrecondition("no PostgreSQL schema for this test");
    PostgresStoreOptions p;
    p.url = schema_->url();
    p.pool_size = 2;
    p.read_only = o.read_only;
    p.cache_scopes = o.cache_scopes;
    p.now_ms = o.now_ms;
    return open_postgres_store(p);
  }
  std::string db_path() const { return (tmp_.path() / "keel.db").string(); }

  // The first column of the first row of `sql`, read from the database without the store.
  int64_t raw_count(const std::string& sql) const {
    return postgres() ? (schema_ ? schema_->query_int(sql) : -1) : raw_int(db_path(), sql);
  }

  std::string new_session(const std::string& title = "t", const std::string& workspace = "/ws") {
    SessionInfo info;
    info.title = title;
    info.workspace = workspace;
    auto id = store_->create_session(info);
    EXPECT_TRUE(id.ok()) << id.status().to_string();
    return id.value_or("");
  }

  TempDir tmp_;
  std::optional<PostgresSchema> schema_;
  int64_t clock_ = 1'700'000'000'000;
  std::unique_ptr<Store> store_;
};

// Runs every TEST_P of `suite` on both engines.
#define KEEL_STORE_ENGINES(suite)                                                                               \
  INSTANTIATE_TEST_SUITE_P(Engines, suite,                                                                      \
                           ::testing::Values(::keel::testing::StoreEngine::kSqlite,                             \
                                             ::keel::testing::StoreEngine::kPostgres),                          \
                           ::keel::testing::store_engine_name)

}  // namespace keel::testing
