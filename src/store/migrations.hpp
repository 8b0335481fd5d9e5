// store/migrations.hpp — the versioned schema of the keel database.
//
// The schema is an ordered list of steps; step i (1-based) takes a database from user_version
// i-1 to i, in one transaction that also bumps user_version, so a crash mid-migration leaves the
// previous version intact. Steps are append-only: never edit a released step, add a new one.
//
// Thread-safety: pure data and functions of a Db the caller owns.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "keel/result.hpp"
#include "store/sql_db.hpp"

namespace keel::detail {

// PRAGMA application_id of a keel database: "keel" in ASCII.
inline constexpr int64_t kKeelApplicationId = 0x6B65656C;

struct Migration {
  int version;           // user_version after this step
  std::string_view sql;  // statements run in the step's transaction
  // Run after `sql` in the same transaction, for what SQL cannot do (e.g. ids from the OS's
  // random source for existing rows); nullptr: nothing.
  Status (*fill)(Db& db) = nullptr;
};

// Every step, in order; the last one's version is the current schema version.
std::span<const Migration> schema_migrations();
int current_schema_version();

// Reads the schema version (SQLite: user_version; PostgreSQL: the keel_schema table). Errors (e.g. "not a database") name the path.
Result<int> read_schema_version(Db& db);

// Checks that `db` can be used by this build: it is empty or a keel database, and its version is
// not newer than the last of `steps`. Returns its version.
Result<int> check_database(Db& db, std::span<const Migration> steps);

// Applies the steps newer than the database's version, each in its own transaction. Another
// process migrating at the same time is harmless: each step re-reads the version under the write
// lock and skips what is already done.
Status migrate(Db& db, std::span<const Migration> steps);

}  // namespace keel::detail
