// Opening the SQLite store: path, pragmas, schema check and migration, and the store's clock.
#include "keel/store/sqlite_store.hpp"

#include <chrono>
#include <cstdlib>
#include <set>
#include <system_error>

#include "base/clock.hpp"
#include "base/random_token.hpp"
#include "store/migrations.hpp"
#include "store/sql_store.hpp"
#include "store/sqlite_db.hpp"

namespace keel {
namespace {

// Connection settings; none of them writes to the file.
Status configure(detail::SqliteDb& db, const StoreOptions& options) {
  sqlite3_busy_timeout(db.raw(), options.busy_timeout_ms);
  KEEL_TRY(db.exec("PRAGMA foreign_keys = ON"));
  KEEL_TRY(db.exec("PRAGMA synchronous = NORMAL"));
  // Reads of long conversations go through a memory map instead of a read() per page.
  KEEL_TRY(db.exec("PRAGMA mmap_size = 268435456"));
  // Processes close without a checkpoint (see Db::open), so the next one to open the database
  // reads the whole write-ahead log to index it: keeping the log under 256 pages (1 MB) bounds
  // that start-up cost. Checkpoints come more often; a run's commits are written off its thread.
  KEEL_TRY(db.exec("PRAGMA wal_autocheckpoint = 256"));
  if (options.max_page_count > 0) {
    KEEL_TRY(db.exec("PRAGMA max_page_count = " + std::to_string(options.max_page_count)));
  }
  return Status::Ok();
}

Status enable_wal(detail::SqliteDb& db) {
  KEEL_ASSIGN_OR_RETURN(detail::Stmt stmt, db.prepare("PRAGMA journal_mode = WAL"));
  KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
  std::string mode = row ? stmt.text(0) : "";
  // An in-memory database reports "memory"; anything else but WAL means WAL is unavailable.
  if (mode != "wal" && mode != "memory") {
    return Status::FailedPrecondition("cannot switch database " + db.path() + " to WAL mode (it stays in '" + mode +
                                      "' mode); is it on a network file system?");
  }
  return Status::Ok();
}

}  // namespace

std::vector<CacheScope> default_cache_scopes() {
  return {
      {"tool_result", 300000, 100, 0},
      {"context_summary", 600000, 0, 50000},
      {"web_search", 120000, 50, 0},
      {"page_fetch", 60000, 30, 0},
  };
}

Result<std::filesystem::path> default_store_path() {
  std::filesystem::path dir;
  const char* keel_home = std::getenv("KEEL_HOME");
  const char* home = std::getenv("HOME");
  if (keel_home != nullptr && *keel_home != '\0') {
    dir = keel_home;
  } else if (home != nullptr && *home != '\0') {
    dir = std::filesystem::path(home) / ".local" / "share" / "keel";
  } else {
    return Status::FailedPrecondition("cannot place the keel database: neither KEEL_HOME nor HOME is set");
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return Status::FailedPrecondition("cannot create folder " + dir.string() + " for the keel database (" +
                                      ec.message() + "); set KEEL_HOME to a writable folder");
  }
  return dir / "keel.db";
}

Result<std::unique_ptr<Store>> open_sqlite_store(const StoreOptions& options) {
  KEEL_TRY(detail::check_cache_scopes(options.cache_scopes));
  if (options.busy_timeout_ms < 0) return Status::InvalidArgument("busy_timeout_ms must not be negative");
  std::filesystem::path path = options.path;
  if (path.empty()) {
    KEEL_ASSIGN_OR_RETURN(path, default_store_path());
  }
  bool in_memory = path == ":memory:";
  std::error_code ec;
  if (options.read_only && !in_memory && !std::filesystem::exists(path, ec)) {
    return Status::NotFound("no database at " + path.string() + " to open read-only");
  }
  int flags =
      (options.read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX;
  KEEL_ASSIGN_OR_RETURN(std::unique_ptr<detail::SqliteDb> db, detail::SqliteDb::open(path.string(), flags));
  // SQLite silently opens a write-protected file read-only; say so now rather than on the first
  // write (or on the first read, which fails when the WAL index cannot be created).
  if (!options.read_only && sqlite3_db_readonly(db->raw(), "main") == 1) {
    return Status::PermissionDenied("cannot open database " + path.string() +
                                    " for writing (the file is read-only); fix its permissions or "
                                    "open it with read_only");
  }
  Status configured = configure(*db, options);
  if (options.read_only && configured.code() == ErrorCode::kPermissionDenied) {
    // The first statement reads the file; in WAL mode that needs the -shm index, which a
    // read-only connection can only use if it exists or its folder is writable.
    return Status::PermissionDenied("cannot read database " + path.string() + " read-only: its WAL index " +
                                    path.string() +
                                    "-shm does not exist and its folder is not writable; "
                                    "make the folder writable or open the database once with write access");
  }
  KEEL_TRY(configured);

  KEEL_ASSIGN_OR_RETURN(int version, detail::check_database(*db, detail::schema_migrations()));
  if (options.read_only) {
    db->set_read_only(true);
    if (version < detail::current_schema_version()) {
      return Status::FailedPrecondition(path.string() + " has schema version " + std::to_string(version) +
                                        " but this keel needs " + std::to_string(detail::current_schema_version()) +
                                        "; open it once without read_only to migrate it");
    }
  } else {
    KEEL_TRY(enable_wal(*db));
    // An up-to-date database (the usual case) is not written at all: each migration step is a
    // write transaction of its own.
    if (version < detail::current_schema_version()) KEEL_TRY(detail::migrate(*db, detail::schema_migrations()));
  }
  std::vector<std::unique_ptr<detail::Db>> connections;
  connections.push_back(std::move(db));
  detail::SqlStoreSettings settings{options.cache_scopes, options.now_ms};
  return std::unique_ptr<Store>(new detail::SqlStore(std::move(connections), std::move(settings)));
}

}  // namespace keel
