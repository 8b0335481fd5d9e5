// store/sqlite_db.hpp — a thin owner of one sqlite3 connection: cached prepared statements,
// write transactions, and SQLite result codes turned into Statuses a user can act on.
//
// Thread-safety: none; SqliteStore serialises every use behind its mutex.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "keel/result.hpp"

namespace keel::detail {

class Db;

// A prepared statement borrowed for one use: bind, step, read columns. On destruction it is
// reset, its bindings cleared, and it returns to the connection's cache (or is finalized when it
// was prepared uncached because the cached copy was in use).
class Stmt {
 public:
  Stmt(Db* db, sqlite3_stmt* stmt, bool* busy_flag);
  ~Stmt();
  Stmt(Stmt&& other) noexcept;
  Stmt& operator=(Stmt&&) = delete;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  // Parameters are 1-based; text and blobs are copied.
  Stmt& bind(int i, std::string_view text);
  Stmt& bind(int i, int64_t value);
  Stmt& bind_double(int i, double value);
  Stmt& bind_blob(int i, std::string_view bytes);
  Stmt& bind_null(int i);
  // Empty text binds NULL (optional ids).
  Stmt& bind_or_null(int i, std::string_view text);

  // Advances: true when a row is ready, false when done, or the error.
  Result<bool> step();
  // Steps to completion, ignoring rows.
  Status run();

  // Columns are 0-based. NULL reads as "" / 0.
  std::string text(int col) const;
  int64_t int64(int col) const;
  double real(int col) const;
  bool is_null(int col) const;

 private:
  Db* db_;
  sqlite3_stmt* stmt_;
  bool* busy_flag_;  // the cache entry's in-use flag; nullptr for an uncached statement
};

class Db {
 public:
  // Opens `path` with SQLITE_OPEN_* `flags`; errors name the path.
  static Result<std::unique_ptr<Db>> open(const std::string& path, int flags);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // A cached prepared statement for `sql` (one statement).
  Result<Stmt> prepare(std::string_view sql);
  // Runs one or more statements without caching them (schema, pragmas).
  Status exec(const std::string& sql);

  // Runs `fn` (returning Status) inside BEGIN IMMEDIATE ... COMMIT. On any error everything is
  // rolled back and the error returned. PermissionDenied without touching the file when the
  // connection is read-only.
  // Inside another write's `fn` (Store::write_together), `fn` joins that transaction: an error
  // rolls back the outer one.
  template <class Fn>
  Status write(Fn&& fn) {
    if (depth_ > 0) return fn();
    KEEL_TRY(begin_write());
    ++depth_;
    Status status = fn();
    --depth_;
    if (status.ok()) status = commit();
    if (!status.ok()) rollback();
    return status;
  }

  // The Status for SQLite result code `rc` from the last call on this connection, while doing
  // `action` (e.g. "appending a message").
  Status error(int rc, std::string_view action) const;

  sqlite3* raw() const { return db_; }
  const std::string& path() const { return path_; }
  void set_read_only(bool read_only) { read_only_ = read_only; }
  bool read_only() const { return read_only_; }
  int64_t last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
  int changes() const { return sqlite3_changes(db_); }

 private:
  Db(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Status begin_write();
  Status commit();
  void rollback();
  int depth_ = 0;  // writes in progress on this connection (nested ones join the outer)

  struct Cached {
    sqlite3_stmt* stmt = nullptr;
    bool busy = false;
  };
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  sqlite3* db_;
  std::string path_;
  bool read_only_ = false;
  std::unordered_map<std::string, Cached, Hash, std::equal_to<>> cache_;
};

// The Status for `rc` with SQLite's own message `detail`, for the database at `path`.
Status sqlite_status(int rc, std::string_view detail, std::string_view path, std::string_view action);

}  // namespace keel::detail
