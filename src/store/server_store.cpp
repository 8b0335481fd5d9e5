// keel serve's records in the store: the per-session event log that event streams resume from,
// and the checkpoints of runs to take up again after a restart.
#include <algorithm>
#include <cstdint>

#include "store/sql_store.hpp"

namespace keel::detail {

Status SqlStore::append_server_events(std::span<const ServerEvent> events) {
  if (events.empty()) return Status::Ok();
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  int64_t now = now_ms();
  return db_->write([&]() -> Status {
    for (const ServerEvent& e : events) {
      // Prepared statements are cached by the connection: this compiles once.
      KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("INSERT INTO server_events (session_id, seq, run_id, type, data, "
                                                    "created_ms) SELECT ?1, ?2, ?3, ?4, ?5, ?6 "
                                                    "WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?1)"));
      stmt.bind(1, e.session_id).bind(2, e.seq).bind(3, e.run_id).bind(4, e.type).bind(5, e.data);
      stmt.bind(6, e.created_ms != 0 ? e.created_ms : now);
      KEEL_TRY(stmt.run());
    }
    return Status::Ok();
  });
}

Result<std::vector<ServerEvent>> SqlStore::list_server_events(std::string_view session_id, int64_t after_seq,
                                                                  size_t limit) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT seq, run_id, type, data, created_ms FROM server_events "
                                                "WHERE session_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3"));
  stmt.bind(1, session_id).bind(2, after_seq).bind(3, static_cast<int64_t>(std::min<size_t>(limit, INT64_MAX)));
  std::vector<ServerEvent> out;
  for (;;) {
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (!row) break;
    ServerEvent e;
    e.session_id = std::string(session_id);
    e.seq = stmt.int64(0);
    e.run_id = stmt.text(1);
    e.type = stmt.text(2);
    e.data = stmt.text(3);
    e.created_ms = stmt.int64(4);
    out.push_back(std::move(e));
  }
  return out;
}

Result<int64_t> SqlStore::last_server_event_seq(std::string_view session_id) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT coalesce(max(seq), 0) FROM server_events WHERE session_id = ?1"));
  stmt.bind(1, session_id);
  KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
  return row ? stmt.int64(0) : 0;
}

Status SqlStore::put_checkpoint_locked(const ServerCheckpoint& c) {
  KEEL_TRY(require_run_locked(c.run_id));
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("INSERT INTO server_checkpoints (run_id, session_id, settings, "
                                                "waiting, updated_ms) VALUES (?1, ?2, ?3, ?4, ?5) "
                                                "ON CONFLICT (run_id) DO UPDATE SET settings = ?3, waiting = ?4, "
                                                "updated_ms = ?5"));
  stmt.bind(1, c.run_id).bind(2, c.session_id).bind(3, c.settings.empty() ? std::string_view("{}") : c.settings);
  stmt.bind(4, c.waiting).bind(5, now_ms());
  return stmt.run();
}

Status SqlStore::put_server_checkpoint(const ServerCheckpoint& c) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  return db_->write([&]() -> Status { return put_checkpoint_locked(c); });
}

Result<std::string> SqlStore::accept_server_run(const RunInfo& run, const Message& task, const std::string& settings) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  std::string id;
  KEEL_TRY(db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(id, insert_run_locked(run));
    NewMessage m{id, task, 0, 0};
    KEEL_TRY(append_locked(run.session_id, std::span<const NewMessage>(&m, 1)).status());
    ServerCheckpoint c;
    c.run_id = id;
    c.session_id = run.session_id;
    c.settings = settings;
    return put_checkpoint_locked(c);
  }));
  return id;
}

Status SqlStore::delete_server_checkpoint(std::string_view run_id) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  return db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("DELETE FROM server_checkpoints WHERE run_id = ?1"));
    stmt.bind(1, run_id);
    return stmt.run();
  });
}

Result<std::vector<ServerCheckpoint>> SqlStore::list_server_checkpoints() {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT run_id, session_id, settings, waiting, updated_ms "
                                                "FROM server_checkpoints ORDER BY updated_ms, run_id"));
  std::vector<ServerCheckpoint> out;
  for (;;) {
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (!row) break;
    ServerCheckpoint c;
    c.run_id = stmt.text(0);
    c.session_id = stmt.text(1);
    c.settings = stmt.text(2);
    c.waiting = stmt.text(3);
    c.updated_ms = stmt.int64(4);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace keel::detail
