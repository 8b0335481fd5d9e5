#include "store/sqlite_db.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>
#include <utility>

namespace keel::detail {
namespace {

// Before the first connection: SQLite's memory statistics take a process-wide mutex on every
// allocation, and keel reads none of them. Refused (harmlessly) when SQLite is already running.
void configure_sqlite_once() {
  static std::once_flag once;
  std::call_once(once, [] { (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
}

}  // namespace

// ---------------------------------------------------------------- statements

// A prepared statement. A cached one is reset and lent again after each use; one prepared while
// the cached copy was lent out (a statement used inside another's loop) is finalized after use.
class SqliteDb::Statement final : public StmtBackend {
 public:
  Statement(SqliteDb* db, sqlite3_stmt* stmt, bool cached) : db_(db), stmt_(stmt), cached_(cached) {}
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool busy = false;

  void bind_text(int i, std::string_view text) override {
    sqlite3_bind_text64(stmt_, i, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  }
  void bind_int(int i, int64_t value) override { sqlite3_bind_int64(stmt_, i, value); }
  void bind_double(int i, double value) override { sqlite3_bind_double(stmt_, i, value); }
  void bind_blob(int i, std::string_view bytes) override {
    // A zero-length blob must still be non-NULL, so never pass a null pointer.
    sqlite3_bind_blob64(stmt_, i, bytes.empty() ? "" : bytes.data(), bytes.size(), SQLITE_TRANSIENT);
  }
  void bind_null(int i) override { sqlite3_bind_null(stmt_, i); }

  Result<bool> step() override {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return db_->error(rc, "");
  }

  std::string text(int col) const override {
    // Read the bytes through column_blob so text holding NUL survives; column_bytes after it.
    const void* data = sqlite3_column_blob(stmt_, col);
    int n = sqlite3_column_bytes(stmt_, col);
    if (data == nullptr || n <= 0) return {};
    return std::string(static_cast<const char*>(data), static_cast<size_t>(n));
  }
  int64_t int64(int col) const override { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const override { return sqlite3_column_double(stmt_, col); }
  bool is_null(int col) const override { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

  void release() override {
    if (!cached_) {
      delete this;
      return;
    }
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    busy = false;
  }

 private:
  SqliteDb* db_;
  sqlite3_stmt* stmt_;
  bool cached_;
};

// ---------------------------------------------------------------- SqliteDb

SqliteDb::SqliteDb(sqlite3* db, std::string path) : Db(std::move(path)), db_(db) {}

Result<std::unique_ptr<SqliteDb>> SqliteDb::open(const std::string& path, int flags) {
  configure_sqlite_once();
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string detail = raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    sqlite3_close_v2(raw);
    return sqlite_status(rc, detail, path, "opening it");
  }
  sqlite3_extended_result_codes(raw, 1);
  // No checkpoint (and its fsyncs) when a short-lived process closes the database: the WAL is
  // checkpointed by later writers once it grows (auto-checkpoint), so a `keel run` ends sooner.
  sqlite3_db_config(raw, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  return std::unique_ptr<SqliteDb>(new SqliteDb(raw, path));
}

SqliteDb::~SqliteDb() {
  cache_.clear();
  sqlite3_close_v2(db_);
}

Result<Stmt> SqliteDb::prepare(std::string_view sql) {
  auto it = cache_.find(sql);
  if (it != cache_.end() && !it->second->busy) {
    it->second->busy = true;
    return Stmt(it->second.get());
  }
  sqlite3_stmt* stmt = nullptr;
  unsigned flags = it == cache_.end() ? SQLITE_PREPARE_PERSISTENT : 0;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), flags, &stmt, nullptr);
  if (rc != SQLITE_OK) return error(rc, "preparing a query");
  if (it != cache_.end()) return Stmt(new Statement(this, stmt, false));  // the cached copy is in use
  auto& entry = cache_.emplace(std::string(sql), std::make_unique<Statement>(this, stmt, true)).first->second;
  entry->busy = true;
  return Stmt(entry.get());
}

Status SqliteDb::exec(const std::string& sql) {
  char* message = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return Status::Ok();
  std::string detail = message != nullptr ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  return sqlite_status(rc, detail, path(), "");
}

Status SqliteDb::error(int rc, std::string_view action) const {
  return sqlite_status(rc, sqlite3_errmsg(db_), path(), action);
}

Status SqliteDb::begin_write() {
  KEEL_TRY(refuse_if_read_only());
  KEEL_ASSIGN_OR_RETURN(Stmt begin, prepare("BEGIN IMMEDIATE"));
  return begin.run();
}

Status SqliteDb::commit() {
  KEEL_ASSIGN_OR_RETURN(Stmt commit, prepare("COMMIT"));
  return commit.run();
}

void SqliteDb::rollback() {
  // Some errors (SQLITE_FULL, IOERR, NOMEM) already rolled the transaction back.
  if (sqlite3_get_autocommit(db_) != 0) return;
  auto stmt = prepare("ROLLBACK");
  if (stmt.ok()) (void)stmt->run();
}

// ---------------------------------------------------------------- claims

namespace {

// An exclusive flock on a file beside the database; the kernel drops it when the process dies.
class FileClaim final : public StoreClaim {
 public:
  explicit FileClaim(int fd) : fd_(fd) {}  // -1: nothing to hold (a private in-memory database)
  ~FileClaim() override {
    if (fd_ >= 0) ::close(fd_);
  }
  FileClaim(const FileClaim&) = delete;
  FileClaim& operator=(const FileClaim&) = delete;

 private:
  int fd_;
};

}  // namespace

Result<std::unique_ptr<StoreClaim>> SqliteDb::claim(const std::string& key) {
  if (path() == ":memory:" || path().empty()) return std::unique_ptr<StoreClaim>(new FileClaim(-1));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(std::hash<std::string>{}(key)));
  const std::string lock_path = path() + "-claim-" + hex + ".lock";
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Status::PermissionDenied("cannot create lock file " + lock_path + " beside database " + path() + " (" +
                                    std::strerror(errno) + ")");
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    return Status::FailedPrecondition("another process already holds '" + key + "' on database " + path());
  }
  return std::unique_ptr<StoreClaim>(new FileClaim(fd));
}

// ---------------------------------------------------------------- errors

Status sqlite_status(int rc, std::string_view detail, std::string_view path, std::string_view action) {
  std::string db = std::string(path);
  std::string while_doing = action.empty() ? "" : " while " + std::string(action);
  std::string why = "(" + std::string(detail) + ")";
  switch (rc & 0xff) {
    case SQLITE_FULL:
      return Status::ResourceExhausted("database " + db + " is full " + why + while_doing +
                                       "; free disk space or raise its size limit");
    case SQLITE_READONLY:
      return Status::PermissionDenied("database " + db + " is read-only " + why + while_doing +
                                      "; check the permissions of the file and its folder");
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return Status::PermissionDenied("access to database " + db + " denied " + why + while_doing);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Unavailable("database " + db + " is locked by another connection " + why + while_doing +
                                 "; retry, or raise busy_timeout_ms");
    case SQLITE_NOTADB:
      return Status::FailedPrecondition(db + " is not a keel database " + why);
    case SQLITE_CORRUPT:
      return Status::FailedPrecondition("database " + db + " is corrupt " + why + while_doing +
                                        "; restore it from a backup or move it away");
    case SQLITE_CANTOPEN:
      return Status::FailedPrecondition("cannot open database " + db + " " + why +
                                        "; check that its folder exists and is writable");
    case SQLITE_NOMEM:
      return Status::ResourceExhausted("out of memory" + while_doing + " on database " + db);
    case SQLITE_IOERR:
      return Status::Unavailable("I/O error on database " + db + " " + why + while_doing);
    case SQLITE_CONSTRAINT:
      return Status::InvalidArgument("refused by database " + db + " " + why + while_doing);
    case SQLITE_TOOBIG:
      return Status::InvalidArgument("value too large for database " + db + " " + why + while_doing);
    default:
      return Status::Internal("database " + db + " error " + why + while_doing);
  }
}

}  // namespace keel::detail
