// store/sqlite_db.hpp — Db over one sqlite3 connection: cached prepared statements, BEGIN
// IMMEDIATE write transactions, and SQLite result codes turned into Statuses.
//
// Thread-safety: none; the store leases the connection to one thread at a time.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "keel/result.hpp"
#include "store/sql_db.hpp"

namespace keel::detail {

class SqliteDb final : public Db {
 public:
  // Opens `path` with SQLITE_OPEN_* `flags`; errors name the path.
  static Result<std::unique_ptr<SqliteDb>> open(const std::string& path, int flags);
  ~SqliteDb() override;

  Result<Stmt> prepare(std::string_view sql) override;
  Status exec(const std::string& sql) override;
  int64_t changes() const override { return sqlite3_changes(db_); }
  Result<int64_t> last_insert_rowid() const override { return static_cast<int64_t>(sqlite3_last_insert_rowid(db_)); }
  SqlDialect dialect() const override { return SqlDialect::kSqlite; }
  Result<std::unique_ptr<StoreClaim>> claim(const std::string& key) override;

  // The Status for SQLite result code `rc` from the last call on this connection, while doing
  // `action` (e.g. "appending a message").
  Status error(int rc, std::string_view action) const;
  sqlite3* raw() const { return db_; }

 protected:
  Status begin_write() override;
  Status commit() override;
  void rollback() override;

 private:
  class Statement;
  SqliteDb(sqlite3* db, std::string path);


  sqlite3* db_;
  std::unordered_map<std::string, std::unique_ptr<Statement>, SqlTextHash, std::equal_to<>> cache_;
};

// The Status for `rc` with SQLite's own message `detail`, for the database at `path`.
Status sqlite_status(int rc, std::string_view detail, std::string_view path, std::string_view action);

}  // namespace keel::detail
