// Memory: notes per workspace with full-text search (FTS5, kept in sync by triggers).
#include "store/fts_query.hpp"
#include "store/sqlite_store_impl.hpp"

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

int64_t sql_limit(int limit) {
  return limit > 0 ? limit : -1;
}

}  // namespace

Result<int64_t> SqliteStore::memory_write(std::string_view workspace, std::string_view text, std::string_view tags) {
  if (text.empty()) return Status::InvalidArgument("a memory note needs some text");
  std::lock_guard lock(mu_);
  int64_t now = now_ms();
  int64_t id = 0;
  KEEL_TRY(db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->prepare("INSERT INTO memory (workspace, text, tags, created_ms, updated_ms) VALUES (?1, ?2, ?3, ?4, ?4)"));
    stmt.bind(1, workspace).bind(2, text).bind(3, tags).bind(4, now);
    KEEL_TRY(stmt.run());
    id = db_->last_insert_rowid();
    return Status::Ok();
  }));
  return id;
}

Result<std::vector<MemoryHit>> SqliteStore::memory_search(std::string_view workspace, std::string_view query,
                                                          int limit) {
  std::vector<MemoryHit> hits;
  std::string match = fts5_match_any(query);
  if (match.empty()) return hits;
  std::lock_guard lock(mu_);
  KEEL_ASSIGN_OR_RETURN(
      Stmt stmt, db_->prepare("SELECT " KEEL_NOTE_COLUMNS ", bm25(memory_fts) AS rank "
                              "FROM memory_fts JOIN memory m ON m.id = memory_fts.rowid "
                              "WHERE memory_fts MATCH ?1 AND m.workspace = ?2 ORDER BY rank, m.id DESC LIMIT ?3"));
  stmt.bind(1, match).bind(2, workspace).bind(3, sql_limit(limit));
  while (true) {
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (!row) return hits;
    // bm25() is lower for better matches; negate it so callers read "higher is better".
    hits.push_back({read_note(stmt), -stmt.real(6)});
  }
}

Result<std::vector<MemoryNote>> SqliteStore::memory_list(std::string_view workspace, int limit) {
  std::lock_guard lock(mu_);
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

Status SqliteStore::memory_remove(int64_t id) {
  std::lock_guard lock(mu_);
  return db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("DELETE FROM memory WHERE id = ?1"));
    stmt.bind(1, id);
    KEEL_TRY(stmt.run());
    return db_->changes() > 0 ? Status::Ok() : Status::NotFound("no memory note " + std::to_string(id));
  });
}

}  // namespace keel::detail
