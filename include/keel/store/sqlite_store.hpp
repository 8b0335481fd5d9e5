// keel/store/sqlite_store.hpp — the Store kept in one SQLite file.
//
// The database runs in WAL mode with synchronous=NORMAL: a committed write survives the process
// being killed (not necessarily a power cut). Several processes may use one file; a writer
// waits up to busy_timeout_ms for another. The schema is versioned (PRAGMA user_version): an
// older database is migrated on open, one written by a newer keel is refused.
//
// Opening fails with a message naming the path when the file is not a keel database
// ("/home/me/.local/share/keel/keel.db is not a keel database (file is not a database)"), when it
// is newer than this build, or when it cannot be written and read_only is false. With
// read_only, every read works and every write is PermissionDenied.
//
//   auto store = keel::open_sqlite_store({.path = "/tmp/keel.db"});
//   if (!store.ok()) { std::cerr << store.status().message() << "\n"; return 1; }
//
// Thread-safety: the returned Store is internally synchronised (one connection and a mutex).
// Do not carry it across fork(); open one per process.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "keel/result.hpp"
#include "keel/store/store.hpp"

namespace keel {

// One cache scope: its entries expire after ttl_ms, and after each put the oldest are evicted
// until at most max_entries remain and their values total at most max_bytes.
struct CacheScope {
  std::string name;
  int64_t ttl_ms = 0;       // lifetime of an entry; 0: never expires
  int64_t max_entries = 0;  // 0: no count cap
  int64_t max_bytes = 0;    // cap on the sum of value sizes; 0: no byte cap
};

// tool_result {300 s, 100 entries}, context_summary {600 s, 50000 bytes},
// web_search {120 s, 50 entries}, page_fetch {60 s, 30 entries}.
std::vector<CacheScope> default_cache_scopes();

struct StoreOptions {
  // The database file, created when missing. Empty: default_store_path(). ":memory:": a private
  // in-memory database (for tests; no WAL, gone on close).
  std::filesystem::path path;
  // Open with SQLITE_OPEN_READONLY: reads work, writes are PermissionDenied (an expired cache
  // entry is a miss left in place). The file must exist with the current schema (it cannot be
  // migrated read-only), and its folder must be writable or its -shm file present (WAL index).
  bool read_only = false;
  // How long a write waits for another connection's write lock, in ms.
  int busy_timeout_ms = 5000;
  // PRAGMA max_page_count: caps the file at this many pages (4 KiB each); 0: SQLite's default.
  // Writes beyond it fail as if the disk were full (tests use it to simulate a full disk).
  int64_t max_page_count = 0;
  // Cache scopes cache_get/put/clear accept; names must be unique.
  std::vector<CacheScope> cache_scopes = default_cache_scopes();
  // Clock for every time the store takes itself, in ms since the epoch. Empty: system clock.
  // Called with the store's lock held, from whichever thread is using the store.
  std::function<int64_t()> now_ms;
};

// $KEEL_HOME/keel.db when KEEL_HOME is set, else ~/.local/share/keel/keel.db; creates the
// folder. FailedPrecondition when neither KEEL_HOME nor HOME is set or the folder cannot be made.
Result<std::filesystem::path> default_store_path();

// Opens (creating or migrating) the database at options.path.
Result<std::unique_ptr<Store>> open_sqlite_store(const StoreOptions& options);

}  // namespace keel
