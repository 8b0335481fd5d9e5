#include "store/postgres_schema.hpp"

#include <cctype>
#include <string>

#include "store/migrations.hpp"

namespace keel::detail {
namespace {

// What PostgreSQL needs besides the SQLite step of the same version, after it: the full-text
// column that stands in for FTS5 (whose virtual table and triggers are left out), and the `rowid`
// the store orders by on tables that have one implicitly in SQLite.
constexpr std::string_view kPostgresExtras1 = R"sql(
ALTER TABLE sessions ADD COLUMN rowid BIGSERIAL;
ALTER TABLE runs ADD COLUMN rowid BIGSERIAL;
)sql";
constexpr std::string_view kPostgresExtras2 = R"sql(
ALTER TABLE memory ADD COLUMN words TSVECTOR
  GENERATED ALWAYS AS (to_tsvector('english', text || ' ' || tags)) STORED;
CREATE INDEX memory_words ON memory USING GIN (words);
ALTER TABLE cache ADD COLUMN rowid BIGSERIAL;
ALTER TABLE spans ADD COLUMN rowid BIGSERIAL;
)sql";

std::string_view postgres_extras(int version) {
  switch (version) {
    case 1:
      return kPostgresExtras1;
    case 2:
      return kPostgresExtras2;
    default:
      return {};
  }
}

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Replaces the upper-case word `from` with `to` where it stands alone.
void replace_word(std::string& sql, std::string_view from, std::string_view to) {
  size_t at = 0;
  while ((at = sql.find(from, at)) != std::string::npos) {
    bool alone = (at == 0 || !is_word_char(sql[at - 1])) &&
                 (at + from.size() == sql.size() || !is_word_char(sql[at + from.size()]));
    if (alone) {
      sql.replace(at, from.size(), to);
      at += to.size();
    } else {
      at += from.size();
    }
  }
}

// Cuts every statement that starts with `head` (through its terminating `tail`).
void drop_statements(std::string& sql, std::string_view head, std::string_view tail) {
  size_t at = 0;
  while ((at = sql.find(head, at)) != std::string::npos) {
    size_t end = sql.find(tail, at);
    end = end == std::string::npos ? sql.size() : end + tail.size();
    sql.erase(at, end - at);
  }
}

// The version of keel's tables in the connection's schema; 0 when the schema is empty; an error
// when it holds another program's tables.
Result<int> found_version(Db& db) {
  KEEL_ASSIGN_OR_RETURN(int64_t has_table, query_int(db,
                                                     "SELECT count(*) FROM pg_catalog.pg_tables "
                                                     "WHERE schemaname = current_schema() "
                                                     "AND tablename = 'keel_schema'"));
  if (has_table == 0) {
    KEEL_ASSIGN_OR_RETURN(int64_t tables, query_int(db,
                                                    "SELECT count(*) FROM pg_catalog.pg_tables "
                                                    "WHERE schemaname = current_schema()"));
    if (tables > 0) {
      return Status::FailedPrecondition("database " + db.path() +
                                        " is not a keel database (its schema holds tables of another program); "
                                        "use another database or schema");
    }
    return 0;
  }
  KEEL_ASSIGN_OR_RETURN(int64_t version,
                        query_int(db, "SELECT version FROM keel_schema WHERE application = 'keel'", -1));
  if (version < 0) return Status::FailedPrecondition("database " + db.path() + " has an empty keel_schema table");
  return static_cast<int>(version);
}

Status check_newest(Db& db, int version) {
  int newest = current_schema_version();
  if (version > newest) {
    return Status::FailedPrecondition("database " + db.path() + " has schema version " + std::to_string(version) +
                                      ", newer than this keel understands (" + std::to_string(newest) +
                                      "); upgrade keel or use another database");
  }
  return Status::Ok();
}

// One migration step in one transaction, holding the schema lock; a step another instance did
// while this one waited is skipped.
Status apply_step(Db& db, const Migration& step) {
  return db.write([&]() -> Status {
    // The lock's key is keel's SQLite application id ("keel" in ASCII).
    KEEL_TRY(db.exec("SELECT pg_advisory_xact_lock(" + std::to_string(kKeelApplicationId) + ")"));
    KEEL_ASSIGN_OR_RETURN(int now, found_version(db));
    KEEL_TRY(check_newest(db, now));
    if (now >= step.version) return Status::Ok();
    if (now != step.version - 1) {
      return Status::Internal("migration to schema version " + std::to_string(step.version) + " found version " +
                              std::to_string(now));
    }
    if (now == 0) {
      KEEL_TRY(
          db.exec("CREATE TABLE keel_schema (application TEXT PRIMARY KEY CHECK (application = 'keel'), "
                  "version INTEGER NOT NULL); INSERT INTO keel_schema VALUES ('keel', 0)"));
    }
    KEEL_TRY(db.exec(postgres_step_sql(step.sql, step.version)));
    if (step.fill != nullptr) KEEL_TRY(step.fill(db));
    return db.exec("UPDATE keel_schema SET version = " + std::to_string(step.version));
  });
}

}  // namespace

std::string postgres_step_sql(std::string_view sqlite_sql, int version) {
  std::string sql(sqlite_sql);
  drop_statements(sql, "PRAGMA ", ";");
  drop_statements(sql, "CREATE VIRTUAL TABLE ", ");");
  drop_statements(sql, "CREATE TRIGGER ", "END;");
  replace_word(sql, "INTEGER PRIMARY KEY", "BIGSERIAL PRIMARY KEY");
  replace_word(sql, "INTEGER", "BIGINT");
  replace_word(sql, "REAL", "DOUBLE PRECISION");
  replace_word(sql, "BLOB", "BYTEA");
  replace_word(sql, "WITHOUT ROWID", "");
  sql += postgres_extras(version);
  return sql;
}

Result<int> prepare_postgres_schema(Db& db, bool read_only) {
  KEEL_ASSIGN_OR_RETURN(int before, found_version(db));
  KEEL_TRY(check_newest(db, before));
  if (before == current_schema_version()) return before;
  if (read_only) {
    return Status::FailedPrecondition("database " + db.path() + " has schema version " + std::to_string(before) +
                                      " but this keel needs " + std::to_string(current_schema_version()) +
                                      "; open it once without read_only to create or migrate keel's tables");
  }
  for (const Migration& step : schema_migrations()) {
    if (step.version <= before) continue;
    Status status = apply_step(db, step);
    if (!status.ok()) {
      if (status.code() == ErrorCode::kPermissionDenied) {
        return Status::PermissionDenied(
            "cannot create keel's tables in database " + db.path() + ": " + status.message() +
            " (the role needs CREATE on the schema, or create them once with one that has it)");
      }
      return Status(status.code(), "cannot bring database " + db.path() + " to schema version " +
                                       std::to_string(step.version) + ": " + status.message());
    }
  }
  return before;
}

}  // namespace keel::detail
