// keel/store/postgres_store.hpp — the Store kept in PostgreSQL, for several keel processes (on
// one machine or many) sharing sessions, runs, approvals and events.
//
// Same semantics as the SQLite store (the same Store implementation runs on both; the same tests
// pass on both). Differences a user can see: memory search ranks with PostgreSQL's full-text
// search ('english' configuration) instead of FTS5's bm25, and text may not hold NUL characters.
//
// keel's tables live in the connection's current schema (add `options=-csearch_path=NAME` to the
// URL to use another); they are created on first open, under an advisory lock so instances
// starting together create them once. A database of a newer schema version is refused, and so is
// a schema holding another program's tables. Every query carries a statement timeout; a
// connection the server dropped is remade when it is next used.
//
//   auto store = keel::open_postgres_store({.url = "postgres://keel@db.internal/keel"});
//
// Thread-safety: internally synchronised; up to pool_size calls run at once, each on its own
// connection. Do not carry it across fork().
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"
#include "keel/store/sqlite_store.hpp"
#include "keel/store/store.hpp"

namespace keel {

struct PostgresStoreOptions {
  // postgres://user[:password]@host[:port]/database[?key=value...] or a key=value connection string.
  std::string url;
  int pool_size = 4;                 // connections kept open
  int connect_timeout_ms = 5000;     // per connection attempt
  int statement_timeout_ms = 30000;  // per query (the server cancels a longer one)
  int lease_wait_ms = 30000;         // how long a call waits for a free connection
  // How long a call waits for a server that went away (a restart) to take connections again:
  // calls pause through a restart instead of failing. A write the server dropped before its
  // commit runs again once it is back; one cut off while committing fails (its outcome is
  // unknown). 0: calls fail at once.
  int reconnect_wait_ms = 30000;
  // Reads work, every write is PermissionDenied; the tables must exist at the current version.
  bool read_only = false;
  std::vector<CacheScope> cache_scopes = default_cache_scopes();
  // Clock for every time the store takes itself, in ms since the epoch. Empty: system clock.
  std::function<int64_t()> now_ms;
};

// Opens the database, creating keel's tables when the schema is empty. Errors name the database
// (its URL without the password): unreachable (Unavailable), authentication refused or a role that
// cannot write (PermissionDenied), another program's tables or a newer schema (FailedPrecondition).
// Nothing is written when opening fails.
Result<std::unique_ptr<Store>> open_postgres_store(const PostgresStoreOptions& options);

// True for a postgres:// or postgresql:// URL (what KEEL_DATABASE_URL or `store:` name to choose
// PostgreSQL over a SQLite file).
bool is_postgres_url(std::string_view location);

}  // namespace keel
