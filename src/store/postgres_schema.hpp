// store/postgres_schema.hpp — keel's tables in PostgreSQL, made by the same migration steps as
// SQLite's (migrations.cpp), translated.
//
// The version lives in the keel_schema table (application 'keel'); each step is one transaction
// holding an advisory lock, so instances starting together migrate once.
//
// Thread-safety: functions of a connection the caller owns.
#pragma once

#include <string>
#include <string_view>

#include "keel/result.hpp"
#include "store/sql_db.hpp"

namespace keel::detail {

// The SQLite migration step `sqlite_sql` (migrations.cpp) as PostgreSQL runs it: the same tables,
// columns and constraints in PostgreSQL's types (BIGINT, BIGSERIAL keys, DOUBLE PRECISION, BYTEA),
// without SQLite's pragmas and FTS5 tables, plus what PostgreSQL needs besides at that version (a
// tsvector column for memory search, the `rowid` columns the store orders by). One list of steps
// thus serves both engines.
std::string postgres_step_sql(std::string_view sqlite_sql, int version);

// Checks the database (empty, or keel's at a version this build understands) and brings it to the
// current version; with `read_only`, only checks (FailedPrecondition when it would need to write).
// Returns the version found before migrating. Messages name the database.
Result<int> prepare_postgres_schema(Db& db, bool read_only);

}  // namespace keel::detail
