// Helpers shared by the store tests: a database in a temporary folder with a hand-driven clock.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <sqlite3.h>

#include "keel/store/sqlite_store.hpp"
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

class StoreTest : public ::testing::Test {
 protected:
  StoreTest() { reopen(); }

  // Options for a store on db_path() whose clock reads clock_.
  StoreOptions options() {
    StoreOptions o;
    o.path = db_path();
    o.now_ms = [this] { return clock_; };
    return o;
  }
  void reopen() { reopen(options()); }
  void reopen(const StoreOptions& o) {
    store_.reset();
    auto opened = open_sqlite_store(o);
    ASSERT_TRUE(opened.ok()) << opened.status().to_string();
    store_ = std::move(opened).value();
  }
  std::string db_path() const { return (tmp_.path() / "keel.db").string(); }

  std::string new_session(const std::string& title = "t", const std::string& workspace = "/ws") {
    SessionInfo info;
    info.title = title;
    info.workspace = workspace;
    auto id = store_->create_session(info);
    EXPECT_TRUE(id.ok()) << id.status().to_string();
    return id.value_or("");
  }

  TempDir tmp_;
  int64_t clock_ = 1'700'000'000'000;
  std::unique_ptr<Store> store_;
};

}  // namespace keel::testing
