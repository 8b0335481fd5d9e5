#include "store/sqlite_db.hpp"

#include <utility>

namespace keel::detail {

// ---------------------------------------------------------------- Stmt

Stmt::Stmt(Db* db, sqlite3_stmt* stmt, bool* busy_flag) : db_(db), stmt_(stmt), busy_flag_(busy_flag) {}

Stmt::Stmt(Stmt&& other) noexcept
    : db_(other.db_),
      stmt_(std::exchange(other.stmt_, nullptr)),
      busy_flag_(std::exchange(other.busy_flag_, nullptr)) {}

Stmt::~Stmt() {
  if (stmt_ == nullptr) return;
  if (busy_flag_ == nullptr) {
    sqlite3_finalize(stmt_);
    return;
  }
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  *busy_flag_ = false;
}

Stmt& Stmt::bind(int i, std::string_view text) {
  sqlite3_bind_text64(stmt_, i, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  return *this;
}

Stmt& Stmt::bind(int i, int64_t value) {
  sqlite3_bind_int64(stmt_, i, value);
  return *this;
}

Stmt& Stmt::bind_double(int i, double value) {
  sqlite3_bind_double(stmt_, i, value);
  return *this;
}

Stmt& Stmt::bind_blob(int i, std::string_view bytes) {
  // A zero-length blob must still be non-NULL, so never pass a null pointer.
  sqlite3_bind_blob64(stmt_, i, bytes.empty() ? "" : bytes.data(), bytes.size(), SQLITE_TRANSIENT);
  return *this;
}

Stmt& Stmt::bind_null(int i) {
  sqlite3_bind_null(stmt_, i);
  return *this;
}

Stmt& Stmt::bind_or_null(int i, std::string_view text) {
  return text.empty() ? bind_null(i) : bind(i, text);
}

Result<bool> Stmt::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return db_->error(rc, "");
}

Status Stmt::run() {
  while (true) {
    KEEL_ASSIGN_OR_RETURN(bool row, step());
    if (!row) return Status::Ok();
  }
}

std::string Stmt::text(int col) const {
  // Read the bytes through column_blob so text holding NUL survives; column_bytes after it.
  const void* data = sqlite3_column_blob(stmt_, col);
  int n = sqlite3_column_bytes(stmt_, col);
  if (data == nullptr || n <= 0) return {};
  return std::string(static_cast<const char*>(data), static_cast<size_t>(n));
}

int64_t Stmt::int64(int col) const {
  return sqlite3_column_int64(stmt_, col);
}
double Stmt::real(int col) const {
  return sqlite3_column_double(stmt_, col);
}
bool Stmt::is_null(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}

// ---------------------------------------------------------------- Db

Result<std::unique_ptr<Db>> Db::open(const std::string& path, int flags) {
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
  return std::unique_ptr<Db>(new Db(raw, path));
}

Db::~Db() {
  for (auto& [sql, cached] : cache_) sqlite3_finalize(cached.stmt);
  sqlite3_close_v2(db_);
}

Result<Stmt> Db::prepare(std::string_view sql) {
  auto it = cache_.find(sql);
  if (it != cache_.end() && !it->second.busy) {
    it->second.busy = true;
    return Stmt(this, it->second.stmt, &it->second.busy);
  }
  sqlite3_stmt* stmt = nullptr;
  unsigned flags = it == cache_.end() ? SQLITE_PREPARE_PERSISTENT : 0;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), flags, &stmt, nullptr);
  if (rc != SQLITE_OK) return error(rc, "preparing a query");
  if (it != cache_.end()) return Stmt(this, stmt, nullptr);  // the cached copy is in use
  Cached& entry = cache_.emplace(std::string(sql), Cached{stmt, true}).first->second;
  return Stmt(this, stmt, &entry.busy);
}

Status Db::exec(const std::string& sql) {
  char* message = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return Status::Ok();
  std::string detail = message != nullptr ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  return sqlite_status(rc, detail, path_, "");
}

Status Db::error(int rc, std::string_view action) const {
  return sqlite_status(rc, sqlite3_errmsg(db_), path_, action);
}

Status Db::begin_write() {
  if (read_only_) {
    return Status::PermissionDenied("database " + path_ + " is open read-only; open it without read_only to change it");
  }
  KEEL_ASSIGN_OR_RETURN(Stmt begin, prepare("BEGIN IMMEDIATE"));
  return begin.run();
}

Status Db::commit() {
  KEEL_ASSIGN_OR_RETURN(Stmt commit, prepare("COMMIT"));
  return commit.run();
}

void Db::rollback() {
  // Some errors (SQLITE_FULL, IOERR, NOMEM) already rolled the transaction back.
  if (sqlite3_get_autocommit(db_) != 0) return;
  auto stmt = prepare("ROLLBACK");
  if (stmt.ok()) (void)stmt->run();
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
