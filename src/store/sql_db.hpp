// store/sql_db.hpp — one database connection as the store sees it, whatever the engine: cached
// prepared statements with `?N` parameters, write transactions, rows read by column, and the
// engine's errors turned into Statuses a user can act on. SqliteDb (sqlite_db.hpp) and PgDb
// (pg_db.hpp) implement it, so one store implementation (sql_store.hpp) serves both engines.
//
// Thread-safety: none; a connection is used by one thread at a time (ConnectionPool leases it).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "keel/result.hpp"
#include "keel/store/store.hpp"

namespace keel::detail {

enum class SqlDialect { kSqlite, kPostgres };

// Hashes SQL text for the connections' statement caches, looked up by string_view.
struct SqlTextHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// One prepared statement of a connection, lent to a Stmt for one use. The engine's own class
// implements it; release() ends the loan (resets the statement for its next borrower).
class StmtBackend {
 public:
  virtual void bind_text(int i, std::string_view text) = 0;
  virtual void bind_int(int i, int64_t value) = 0;
  virtual void bind_double(int i, double value) = 0;
  virtual void bind_blob(int i, std::string_view bytes) = 0;
  virtual void bind_null(int i) = 0;
  virtual Result<bool> step() = 0;
  virtual std::string text(int col) const = 0;
  virtual int64_t int64(int col) const = 0;
  virtual double real(int col) const = 0;
  virtual bool is_null(int col) const = 0;
  virtual void release() = 0;

 protected:
  ~StmtBackend() = default;
};

// A prepared statement borrowed for one use: bind, step, read columns. On destruction it returns
// to its connection.
class Stmt {
 public:
  explicit Stmt(StmtBackend* backend) : backend_(backend) {}
  ~Stmt() {
    if (backend_ != nullptr) backend_->release();
  }
  Stmt(Stmt&& other) noexcept : backend_(std::exchange(other.backend_, nullptr)) {}
  Stmt& operator=(Stmt&&) = delete;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  // Parameters are 1-based; text and blobs are copied.
  Stmt& bind(int i, std::string_view text) {
    backend_->bind_text(i, text);
    return *this;
  }
  Stmt& bind(int i, int64_t value) {
    backend_->bind_int(i, value);
    return *this;
  }
  Stmt& bind_double(int i, double value) {
    backend_->bind_double(i, value);
    return *this;
  }
  Stmt& bind_blob(int i, std::string_view bytes) {
    backend_->bind_blob(i, bytes);
    return *this;
  }
  Stmt& bind_null(int i) {
    backend_->bind_null(i);
    return *this;
  }
  // Empty text binds NULL (optional ids).
  Stmt& bind_or_null(int i, std::string_view text) { return text.empty() ? bind_null(i) : bind(i, text); }

  // Advances: true when a row is ready, false when done, or the error.
  Result<bool> step() { return backend_->step(); }
  // Steps to completion, ignoring rows.
  Status run() {
    while (true) {
      KEEL_ASSIGN_OR_RETURN(bool row, step());
      if (!row) return Status::Ok();
    }
  }

  // Columns are 0-based. NULL reads as "" / 0.
  std::string text(int col) const { return backend_->text(col); }
  int64_t int64(int col) const { return backend_->int64(col); }
  double real(int col) const { return backend_->real(col); }
  bool is_null(int col) const { return backend_->is_null(col); }

 private:
  StmtBackend* backend_;
};

// A LIMIT parameter: `limit` when positive, else no limit (a number both engines accept).
inline int64_t sql_limit(int64_t limit) {
  return limit > 0 ? limit : std::numeric_limits<int64_t>::max();
}

class Db {
 public:
  virtual ~Db() = default;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // A cached prepared statement for `sql` (one statement; parameters written ?1, ?2, ...).
  virtual Result<Stmt> prepare(std::string_view sql) = 0;
  // Runs one or more statements without caching them (schema, settings).
  virtual Status exec(const std::string& sql) = 0;
  // Rows changed by the last INSERT, UPDATE or DELETE run on this connection.
  virtual int64_t changes() const = 0;
  // The rowid of the last row an INSERT on this connection added (SQLite; insert_with_id() uses it).
  // Engines without one (PostgreSQL) name the id with RETURNING instead: kInternal here.
  virtual Result<int64_t> last_insert_rowid() const {
    return Status::Internal("this database names an inserted row's id with RETURNING");
  }
  virtual SqlDialect dialect() const = 0;
  // Makes the connection usable before it is lent (a server connection that dropped is remade,
  // waiting for a server that is down as long as the engine's reconnect wait when the calling
  // thread may wait: keel/store/outage_wait.hpp); Unavailable naming the database when it cannot be.
  virtual Status ready() { return Status::Ok(); }
  // Holds `key` (a name) for this process while the result lives, across every process using the
  // database. SQLite: a lock file beside it, FailedPrecondition when another process holds it.
  // PostgreSQL: a shared claim that holds nothing (several processes may serve together).
  virtual Result<std::unique_ptr<StoreClaim>> claim(const std::string& key) = 0;
  // Tells the processes watching `topic` on this database `payload`, when the open write
  // transaction commits (PostgreSQL NOTIFY). SQLite: one process uses the database; nothing to tell.
  virtual Status notify(std::string_view /*topic*/, std::string_view /*payload*/) { return Status::Ok(); }
  // Calls `on_notify(payload)` from a thread of its own for what other connections notify on
  // `topic`, and "" after a lost connection was remade; until the result is destroyed. SQLite:
  // an inert watch.
  virtual Result<std::unique_ptr<StoreWatch>> watch(std::string_view topic,
                                                    std::function<void(const std::string&)> on_notify);

  // Runs `fn` (returning Status) inside one write transaction. On any error everything is rolled
  // back and the error returned. PermissionDenied without touching the database when the
  // connection is read-only. Inside another write's `fn` (Store::write_together), `fn` joins that
  // transaction: an error rolls back the outer one.
  // A transaction the server dropped with its connection (a restart) runs again, `fn` included,
  // once the connection is remade, so `fn` must start from scratch each time (no appending to
  // what an earlier attempt left). When the connection was lost while committing, the engine
  // finds out whether the commit took effect (then the write succeeded) before running it again.
  template <class Fn>
  Status write(Fn&& fn) {
    if (depth_ > 0) return fn();
    for (int attempt = 1;; ++attempt) {
      bool committing = false;
      Status status = begin_write();
      if (status.ok()) {
        found_in_write_.clear();
        ++depth_;
        status = fn();
        --depth_;
        committing = status.ok();
        if (committing) status = commit();
      }
      if (status.ok()) return status;
      rollback();
      const LostWrite lost = attempt < kWriteAttempts ? after_lost_write(committing) : LostWrite::kFailed;
      if (lost == LostWrite::kCommitted) return Status::Ok();
      if (lost != LostWrite::kRunAgain) return status;
    }
  }

  // Rows the open write transaction already found by id (`table` names where: "runs",
  // "sessions"), so a check repeated within one transaction asks the database once. Outside a
  // write nothing is remembered. A row deleted later in the same transaction is still caught by
  // its foreign keys.
  bool found_in_write(std::string_view table, std::string_view id) const {
    if (depth_ == 0) return false;
    for (const auto& [t, i] : found_in_write_) {
      if (t == table && i == id) return true;
    }
    return false;
  }
  void remember_found_in_write(std::string_view table, std::string_view id) {
    if (depth_ > 0 && found_in_write_.size() < kFoundInWriteLimit) found_in_write_.emplace_back(table, id);
  }

  // The database as messages name it: a file's path, or a server URL without its password.
  const std::string& path() const { return path_; }
  void set_read_only(bool read_only) { read_only_ = read_only; }
  bool read_only() const { return read_only_; }

 protected:
  explicit Db(std::string path) : path_(std::move(path)) {}
  virtual Status begin_write() = 0;
  virtual Status commit() = 0;
  virtual void rollback() = 0;
  // After a failed write: whether the server dropped the connection under it, and if so (the
  // connection remade) whether the transaction committed all the same or may run again.
  enum class LostWrite { kFailed, kRunAgain, kCommitted };
  virtual LostWrite after_lost_write(bool /*committing*/) { return LostWrite::kFailed; }
  static constexpr int kWriteAttempts = 4;

  // PermissionDenied for a write on a read-only connection.
  Status refuse_if_read_only() const {
    if (!read_only_) return Status::Ok();
    return Status::PermissionDenied("database " + path_ + " is open read-only; open it without read_only to change it");
  }

 private:
  std::string path_;
  bool read_only_ = false;
  int depth_ = 0;  // writes in progress on this connection (nested ones join the outer)
  static constexpr std::size_t kFoundInWriteLimit = 16;
  std::vector<std::pair<std::string_view, std::string>> found_in_write_;
};

inline Result<std::unique_ptr<StoreWatch>> Db::watch(std::string_view, std::function<void(const std::string&)>) {
  return std::make_unique<StoreWatch>();
}

// The first column of the first row of `sql` (stepped to its end); `if_none` when there is no row.
inline Result<int64_t> query_int(Db& db, std::string_view sql, int64_t if_none = 0) {
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db.prepare(sql));
  KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
  int64_t value = row ? stmt.int64(0) : if_none;
  KEEL_TRY(stmt.run());
  return value;
}

// Runs the INSERT `insert` (without a RETURNING clause) with the parameters `bind(Stmt&)` sets
// and gives the new row's id. SQLite runs it as written and reads the connection's last rowid:
// there RETURNING builds a temporary table at every execution, which cost more than the insert
// itself. PostgreSQL runs it with " RETURNING id" appended.
template <class Bind>
Result<int64_t> insert_with_id(Db& db, std::string_view insert, Bind&& bind) {
  if (db.dialect() != SqlDialect::kSqlite) {
    std::string returning(insert);
    returning += " RETURNING id";
    KEEL_ASSIGN_OR_RETURN(Stmt stmt, db.prepare(returning));
    bind(stmt);
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (!row) return Status::Internal("an insert returned no id");
    const int64_t id = stmt.int64(0);
    KEEL_TRY(stmt.run());
    return id;
  }
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db.prepare(insert));
  bind(stmt);
  KEEL_TRY(stmt.run());
  return db.last_insert_rowid();
}

}  // namespace keel::detail
