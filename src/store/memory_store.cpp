// Memory: notes per workspace with full-text search (SQLite: FTS5 kept in sync by triggers;
// PostgreSQL: a generated tsvector column).
#include "store/fts_query.hpp"
#include "store/sql_store.hpp"

namespace keel::detail {
namespace {

// A macro so each query is one string literal (no run-time concatenation).
#define KEEL_NOTE_COLUMNS "m.id, m.workspace, m.text, m.tags, m.created_ms, m.updated_ms"

MemoryNote read_note(const Stmt& stmt) {
  MemoryNote note;
  note.id = stmt.int64(0);
  note.workspace = stmt.text(1);
  note.text = stmt.text(2);
  note.tags = stmt.text(3);
  note.created_ms = stmt.int64(4);
  note.updated_ms = stmt.int64(5);
  return note;
}

}  // namespace

Result<int64_t> SqlStore::memory_write(std::string_view workspace, std::string_view text, std::string_view tags) {
  if (text.empty()) return Status::InvalidArgument("a memory note needs some text");
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  int64_t now = now_ms();
  int64_t id = 0;
  KEEL_TRY(db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(
        id, insert_with_id(
                *db_, "INSERT INTO memory (workspace, text, tags, created_ms, updated_ms) VALUES (?1, ?2, ?3, ?4, ?4)",
                [&](Stmt& stmt) { stmt.bind(1, workspace).bind(2, text).bind(3, tags).bind(4, now); }));
    return Status::Ok();
  }));
  return id;
}

Result<std::vector<MemoryHit>> SqlStore::memory_search(std::string_view workspace, std::string_view query,
                                                          int limit) {
  std::vector<MemoryHit> hits;
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  const bool postgres = db_->dialect() == SqlDialect::kPostgres;
  std::string match = postgres ? tsquery_match_any(query) : fts5_match_any(query);
  if (match.empty()) return hits;
  // Both rank so that higher is better: bm25() is lower for better matches, so it is negated.
  KEEL_ASSIGN_OR_RETURN(
      Stmt stmt,
      postgres ? db_->prepare("SELECT " KEEL_NOTE_COLUMNS ", ts_rank(m.words, q) AS rank "
                              "FROM memory m, to_tsquery('english', ?1) AS q "
                              "WHERE m.words @@ q AND m.workspace = ?2 ORDER BY rank DESC, m.id DESC LIMIT ?3")
               : db_->prepare("SELECT " KEEL_NOTE_COLUMNS ", -bm25(memory_fts) AS rank "
                              "FROM memory_fts JOIN memory m ON m.id = memory_fts.rowid "
                              "WHERE memory_fts MATCH ?1 AND m.workspace = ?2 ORDER BY rank DESC, m.id DESC LIMIT ?3"));
  stmt.bind(1, match).bind(2, workspace).bind(3, sql_limit(limit));
  while (true) {
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (!row) return hits;
    hits.push_back({read_note(stmt), stmt.real(6)});
  }
}

Result<std::vector<MemoryNote>> SqlStore::memory_list(std::string_view workspace, int limit) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT " KEEL_NOTE_COLUMNS " FROM memory m WHERE m.workspace = ?1 "
                                                "ORDER BY m.updated_ms DESC, m.id DESC LIMIT ?2"));
  stmt.bind(1, workspace).bind(2, sql_limit(limit));
  std::vector<MemoryNote> notes;
  while (true) {
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (!row) return notes;
    notes.push_back(read_note(stmt));
  }
}

Status SqlStore::memory_remove(int64_t id) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  return db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("DELETE FROM memory WHERE id = ?1"));
    stmt.bind(1, id);
    KEEL_TRY(stmt.run());
    return db_->changes() > 0 ? Status::Ok() : Status::NotFound("no memory note " + std::to_string(id));
  });
}

}  // namespace keel::detail
