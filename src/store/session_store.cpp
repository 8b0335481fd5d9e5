// Sessions: create, read, list, rename, delete (cascading) and fork.
#include "store/sql_store.hpp"

namespace keel::detail {
namespace {

// A macro so each query is one string literal (no run-time concatenation).
#define KEEL_SESSION_SELECT                                                                         \
  "SELECT s.id, s.title, s.workspace, s.model, s.parent_id, s.hidden, s.created_ms, s.updated_ms, " \
  "(SELECT count(*) FROM messages m WHERE m.session_id = s.id) FROM sessions s "

SessionRecord read_session(const Stmt& stmt) {
  SessionRecord r;
  r.id = stmt.text(0);
  r.title = stmt.text(1);
  r.workspace = stmt.text(2);
  r.model = stmt.text(3);
  r.parent_id = stmt.text(4);
  r.hidden = stmt.int64(5) != 0;
  r.created_ms = stmt.int64(6);
  r.updated_ms = stmt.int64(7);
  r.message_count = stmt.int64(8);
  return r;
}

Status no_session(std::string_view id) {
  return Status::NotFound("no session '" + std::string(id) + "'");
}

}  // namespace

Status SqlStore::require_session_locked(std::string_view id) {
  if (db_->found_in_write("sessions", id)) return Status::Ok();
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT 1 FROM sessions WHERE id = ?1"));
  stmt.bind(1, id);
  KEEL_ASSIGN_OR_RETURN(bool found, stmt.step());
  if (!found) return no_session(id);
  db_->remember_found_in_write("sessions", id);
  return Status::Ok();
}

Result<std::string> SqlStore::create_session(const SessionInfo& info) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  std::string id = random_id("s_");
  int64_t created = or_now(info.created_ms);
  KEEL_TRY(db_->write([&]() -> Status {
    if (!info.parent_id.empty()) {
      Status parent = require_session_locked(info.parent_id);
      if (!parent.ok()) return Status::NotFound("parent session '" + info.parent_id + "' does not exist");
    }
    KEEL_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->prepare("INSERT INTO sessions (id, title, workspace, model, created_ms, updated_ms, parent_id, hidden) "
                     "VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7)"));
    stmt.bind(1, id).bind(2, info.title).bind(3, info.workspace).bind(4, info.model).bind(5, created);
    stmt.bind_or_null(6, info.parent_id).bind(7, int64_t{info.hidden ? 1 : 0});
    return stmt.run();
  }));
  return id;
}

Result<SessionRecord> SqlStore::get_session(std::string_view id) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare(KEEL_SESSION_SELECT "WHERE s.id = ?1"));
  stmt.bind(1, id);
  KEEL_ASSIGN_OR_RETURN(bool found, stmt.step());
  if (!found) return no_session(id);
  return read_session(stmt);
}

Result<std::vector<SessionRecord>> SqlStore::list_sessions(const SessionFilter& filter) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(
      Stmt stmt, db_->prepare(KEEL_SESSION_SELECT "WHERE (CAST(?1 AS TEXT) IS NULL OR s.workspace = ?1) AND (?2 = 1 OR s.hidden = 0) "
                                                  "ORDER BY s.updated_ms DESC, s.rowid DESC LIMIT ?3"));
  if (filter.workspace) {
    stmt.bind(1, *filter.workspace);
  } else {
    stmt.bind_null(1);
  }
  stmt.bind(2, int64_t{filter.include_hidden ? 1 : 0}).bind(3, sql_limit(filter.limit));
  std::vector<SessionRecord> sessions;
  while (true) {
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (!row) return sessions;
    sessions.push_back(read_session(stmt));
  }
}

Status SqlStore::rename_session(std::string_view id, std::string_view title) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  return db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("UPDATE sessions SET title = ?2, updated_ms = ?3 WHERE id = ?1"));
    stmt.bind(1, id).bind(2, title).bind(3, now_ms());
    KEEL_TRY(stmt.run());
    return db_->changes() > 0 ? Status::Ok() : no_session(id);
  });
}

Status SqlStore::delete_session(std::string_view id) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  return db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("DELETE FROM sessions WHERE id = ?1"));
    stmt.bind(1, id);
    KEEL_TRY(stmt.run());
    return db_->changes() > 0 ? Status::Ok() : no_session(id);
  });
}

Result<std::string> SqlStore::fork_session(std::string_view id, std::optional<int64_t> up_to_seq) {
  if (up_to_seq && *up_to_seq < 0) {
    return Status::InvalidArgument("cannot fork session '" + std::string(id) + "' up to a negative seq (" +
                                   std::to_string(*up_to_seq) + ")");
  }
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  std::string fork_id = random_id("s_");
  int64_t now = now_ms();
  KEEL_TRY(db_->write([&]() -> Status {
    KEEL_TRY(require_session_locked(id));
    KEEL_ASSIGN_OR_RETURN(
        Stmt session,
        db_->prepare("INSERT INTO sessions (id, title, workspace, model, created_ms, updated_ms, parent_id, hidden) "
                     "SELECT ?1, title, workspace, model, ?3, ?3, id, hidden FROM sessions WHERE id = ?2"));
    session.bind(1, fork_id).bind(2, id).bind(3, now);
    KEEL_TRY(session.run());
    KEEL_ASSIGN_OR_RETURN(
        Stmt messages,
        db_->prepare(
            "INSERT INTO messages (session_id, seq, run_id, role, content, reasoning, tool_calls, tool_call_id, "
            "name, metadata, tokens, created_ms) "
            "SELECT ?1, seq, run_id, role, content, reasoning, tool_calls, tool_call_id, name, metadata, tokens, "
            "created_ms FROM messages WHERE session_id = ?2 AND seq <= ?3 ORDER BY seq"));
    messages.bind(1, fork_id).bind(2, id).bind(3, up_to_seq.value_or(INT64_MAX));
    return messages.run();
  }));
  return fork_id;
}

}  // namespace keel::detail
