// Messages: atomic appends with per-session contiguous seqs, and loading a conversation back.
#include "store/message_codec.hpp"
#include "store/sql_store.hpp"

namespace keel::detail {

Status SqlStore::require_run_locked(std::string_view id) {
  if (id.empty() || db_->found_in_write("runs", id)) return Status::Ok();
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT 1 FROM runs WHERE id = ?1"));
  stmt.bind(1, id);
  KEEL_ASSIGN_OR_RETURN(bool found, stmt.step());
  if (!found) return Status::NotFound("no run '" + std::string(id) + "'");
  db_->remember_found_in_write("runs", id);
  return Status::Ok();
}

Result<int64_t> SqlStore::append_locked(std::string_view session_id, std::span<const NewMessage> batch) {
  int64_t now = now_ms();
  if (batch.empty()) {
    KEEL_TRY(require_session_locked(session_id));
  } else {
    // Touching the session first also locks its row until the transaction ends, so appenders on
    // other connections (PostgreSQL) queue up here instead of picking the same seq; SQLite's
    // write lock (BEGIN IMMEDIATE) already serialises them.
    KEEL_ASSIGN_OR_RETURN(Stmt touch, db_->prepare("UPDATE sessions SET updated_ms = ?2 WHERE id = ?1"));
    touch.bind(1, session_id).bind(2, now);
    KEEL_TRY(touch.run());
    if (db_->changes() == 0) return Status::NotFound("no session '" + std::string(session_id) + "'");
    db_->remember_found_in_write("sessions", session_id);
  }
  int64_t first = 0;
  {
    KEEL_ASSIGN_OR_RETURN(Stmt next,
                          db_->prepare("SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE session_id = ?1"));
    next.bind(1, session_id);
    KEEL_TRY(next.step());
    first = next.int64(0);
  }
  int64_t seq = first;
  for (const NewMessage& item : batch) {
    KEEL_TRY(require_run_locked(item.run_id));
    const Message& m = item.message;
    KEEL_ASSIGN_OR_RETURN(
        Stmt insert,
        db_->prepare(
            "INSERT INTO messages (session_id, seq, run_id, role, content, reasoning, tool_calls, tool_call_id, "
            "name, metadata, tokens, created_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"));
    insert.bind(1, session_id).bind(2, seq).bind_or_null(3, item.run_id).bind(4, role_name(m.role));
    insert.bind(5, m.content).bind(6, m.reasoning).bind_or_null(7, encode_tool_calls(m.tool_calls));
    insert.bind(8, m.tool_call_id).bind(9, m.name).bind_or_null(10, encode_metadata(m.metadata));
    insert.bind(11, item.tokens).bind(12, item.created_ms != 0 ? item.created_ms : now);
    KEEL_TRY(insert.run());
    ++seq;
  }
  return first;
}

Result<int64_t> SqlStore::append_message(std::string_view session_id, std::string_view run_id,
                                            const Message& message, int64_t tokens) {
  // One-element batch; the copy of `message` costs far less than the transaction it rides in.
  NewMessage item{std::string(run_id), message, tokens, 0};
  return append_messages(session_id, std::span<const NewMessage>(&item, 1));
}

Result<int64_t> SqlStore::append_messages(std::string_view session_id, std::span<const NewMessage> batch) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  int64_t first = 0;
  Status status = db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(first, append_locked(session_id, batch));
    return Status::Ok();
  });
  if (!status.ok() && status.code() != ErrorCode::kNotFound) {
    return Status(status.code(), "cannot append to session '" + std::string(session_id) + "': " + status.message());
  }
  KEEL_TRY(status);
  return first;
}

Result<std::vector<StoredMessage>> SqlStore::load_messages(std::string_view session_id) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  std::vector<StoredMessage> out;
  {
    KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT seq, run_id, role, content, reasoning, tool_calls, "
                                                  "tool_call_id, name, metadata, tokens, created_ms "
                                                  "FROM messages WHERE session_id = ?1 ORDER BY seq"));
    stmt.bind(1, session_id);
    while (true) {
      KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
      if (!row) break;
      StoredMessage stored;
      stored.seq = stmt.int64(0);
      stored.run_id = stmt.text(1);
      Message& m = stored.message;
      KEEL_ASSIGN_OR_RETURN(m.role, parse_role(stmt.text(2)));
      m.content = stmt.text(3);
      m.reasoning = stmt.text(4);
      KEEL_ASSIGN_OR_RETURN(m.tool_calls, decode_tool_calls(stmt.text(5)));
      m.tool_call_id = stmt.text(6);
      m.name = stmt.text(7);
      KEEL_ASSIGN_OR_RETURN(m.metadata, decode_metadata(stmt.text(8)));
      stored.tokens = stmt.int64(9);
      stored.created_ms = stmt.int64(10);
      out.push_back(std::move(stored));
    }
  }
  if (out.empty()) KEEL_TRY(require_session_locked(session_id));
  return out;
}

}  // namespace keel::detail
