// keel serve's records in the store: the per-session event log that event streams resume from,
// and the checkpoints of runs to take up again after a restart.
#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "store/sql_store.hpp"

namespace keel::detail {

const std::string_view kCheckpointColumns =
    "SELECT run_id, session_id, settings, waiting, updated_ms, workspace, owner, lease_until_ms";

Result<std::vector<ServerCheckpoint>> read_checkpoints(Stmt& stmt) {
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
    c.workspace = stmt.text(5);
    c.owner = stmt.text(6);
    c.lease_until_ms = stmt.int64(7);
    out.push_back(std::move(c));
  }
  return out;
}

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

namespace {

// "INSERT ... VALUES (?1, ..., ?6), (?7, ...)" for `rows` events: a batch costs one round trip per
// statement, not per event.
std::string insert_events_sql(size_t rows) {
  std::string sql = "INSERT INTO server_events (session_id, seq, run_id, type, data, created_ms) VALUES ";
  for (size_t r = 0; r < rows; ++r) {
    sql += r == 0 ? "(" : ", (";
    for (size_t c = 1; c <= 6; ++c) sql += (c == 1 ? "?" : ", ?") + std::to_string(r * 6 + c);
    sql += ")";
  }
  return sql;
}

constexpr size_t kEventRowsPerInsert = 16;
constexpr size_t kNoticeBytes = 7000;  // PostgreSQL's payloads stop at 8000 bytes

}  // namespace

Status SqlStore::append_numbered_server_events(std::span<ServerEvent> events,
                                               const std::function<void(ServerEvent&)>& render) {
  if (events.empty()) return Status::Ok();
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  const int64_t now = now_ms();
  const bool postgres = db_->dialect() == SqlDialect::kPostgres;
  return db_->write([&]() -> Status {
    // Events are a live feed: their commit does not wait for the disk (PostgreSQL still writes
    // them in order; only a crash of the database server itself can lose the last moments).
    if (postgres) KEEL_TRY(db_->exec("SET LOCAL synchronous_commit = off"));
    // Each session's row is locked (PostgreSQL; SQLite's write transaction admits one writer)
    // as its highest seq is read, so writers to one session queue up and commit in seq order.
    // The rows are locked in the order of their ids: two instances' batches locking the same
    // sessions then never wait for each other in a circle.
    std::vector<std::string_view> sessions;
    for (const ServerEvent& e : events) sessions.push_back(e.session_id);
    std::sort(sessions.begin(), sessions.end());
    sessions.erase(std::unique(sessions.begin(), sessions.end()), sessions.end());
    std::unordered_map<std::string_view, int64_t> last;  // -1: the session is gone
    std::vector<std::string_view> changed;
    for (std::string_view session : sessions) {
      bool exists = true;
      if (postgres) {
        // The lock first, then the highest seq in a statement of its own: a statement that waited
        // for the lock would otherwise read the seq from before the writer it waited for.
        KEEL_ASSIGN_OR_RETURN(Stmt lock, db_->prepare("SELECT 1 FROM sessions WHERE id = ?1 FOR UPDATE"));
        lock.bind(1, session);
        KEEL_ASSIGN_OR_RETURN(exists, lock.step());
        KEEL_TRY(lock.run());
      }
      int64_t seq = -1;
      if (exists) {
        KEEL_ASSIGN_OR_RETURN(
            Stmt highest, db_->prepare("SELECT (SELECT coalesce(max(seq), 0) FROM server_events WHERE session_id = s.id) "
                                       "FROM sessions s WHERE s.id = ?1"));
        highest.bind(1, session);
        KEEL_ASSIGN_OR_RETURN(bool row, highest.step());
        if (row) seq = highest.int64(0);
        KEEL_TRY(highest.run());
      }
      last.emplace(session, seq);
      if (seq >= 0) changed.push_back(session);
    }
    std::vector<ServerEvent*> rows;
    for (ServerEvent& e : events) {
      int64_t& seq = last[e.session_id];
      if (seq < 0) {
        e.seq = 0;
        continue;
      }
      e.seq = ++seq;
      if (e.created_ms == 0) e.created_ms = now;
      render(e);
      rows.push_back(&e);
    }
    for (size_t at = 0; at < rows.size(); at += kEventRowsPerInsert) {
      const size_t n = std::min(kEventRowsPerInsert, rows.size() - at);
      KEEL_ASSIGN_OR_RETURN(Stmt insert, db_->prepare(insert_events_sql(n)));
      for (size_t r = 0; r < n; ++r) {
        const ServerEvent& e = *rows[at + r];
        const int base = static_cast<int>(r * 6);
        insert.bind(base + 1, e.session_id).bind(base + 2, e.seq).bind(base + 3, e.run_id).bind(base + 4, e.type);
        insert.bind(base + 5, e.data).bind(base + 6, e.created_ms);
      }
      KEEL_TRY(insert.run());
    }
    return notify_keys_locked("events", changed);
  });
}

Status SqlStore::notify_keys_locked(std::string_view topic, const std::vector<std::string_view>& keys) {
  // "TAG KEY KEY ...": the watchers of this store skip what it sent itself.
  std::string notice = notice_tag_;
  for (std::string_view key : keys) {
    if (notice.size() + key.size() + 1 > kNoticeBytes) {
      KEEL_TRY(db_->notify(topic, notice));
      notice = notice_tag_;
    }
    notice.append(" ").append(key);
  }
  if (!keys.empty()) KEEL_TRY(db_->notify(topic, notice));
  return Status::Ok();
}

Result<std::unique_ptr<StoreWatch>> SqlStore::watch_keys(std::string_view topic,
                                                        std::function<void(const std::string&)> on_key) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  return db_->watch(topic, [tag = notice_tag_, on_key = std::move(on_key)](const std::string& payload) {
    if (payload.empty()) return on_key("");  // the watch was interrupted: anything may have changed
    size_t at = payload.find(' ');
    if (payload.compare(0, at, tag) == 0) return;  // this store's own: handed on already
    while (at != std::string::npos) {
      size_t next = payload.find(' ', at + 1);
      std::string key = payload.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
      if (!key.empty()) on_key(key);
      at = next;
    }
  });
}

Result<std::unique_ptr<StoreWatch>> SqlStore::watch_server_events(std::function<void(const std::string&)> changed) {
  return watch_keys("events", std::move(changed));
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
  // A checkpoint written again keeps its holder: only a claim or a release changes that.
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("INSERT INTO server_checkpoints (run_id, session_id, settings, "
                                                "waiting, updated_ms, workspace, owner, lease_until_ms) "
                                                "SELECT ?1, ?2, ?3, ?4, ?5, coalesce((SELECT workspace FROM sessions "
                                                "WHERE id = ?2), ''), ?6, ?7 "
                                                "ON CONFLICT (run_id) DO UPDATE SET settings = ?3, waiting = ?4, "
                                                "updated_ms = ?5"));
  stmt.bind(1, c.run_id).bind(2, c.session_id).bind(3, c.settings.empty() ? std::string_view("{}") : c.settings);
  stmt.bind(4, c.waiting).bind(5, now_ms()).bind(6, c.owner).bind(7, c.lease_until_ms);
  return stmt.run();
}

Status SqlStore::put_server_checkpoint(const ServerCheckpoint& c) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  return db_->write([&]() -> Status { return put_checkpoint_locked(c); });
}

Result<std::string> SqlStore::accept_server_run(const RunInfo& run, const Message& task, const std::string& settings,
                                                const ServerLease& holder) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  std::string id;
  KEEL_TRY(db_->write([&]() -> Status {
    KEEL_TRY(require_session_locked(run.session_id));
    // One active run per session, whichever instance accepted it: a checkpoint left by a run that
    // has ended (its holder stopped before removing it) does not count.
    KEEL_ASSIGN_OR_RETURN(Stmt ended, db_->prepare("DELETE FROM server_checkpoints WHERE session_id = ?1 AND run_id IN "
                                                   "(SELECT id FROM runs WHERE session_id = ?1 "
                                                   "AND state IN ('finished', 'failed', 'aborted'))"));
    ended.bind(1, run.session_id);
    KEEL_TRY(ended.run());
    KEEL_ASSIGN_OR_RETURN(Stmt active, db_->prepare("SELECT run_id FROM server_checkpoints WHERE session_id = ?1"));
    active.bind(1, run.session_id);
    KEEL_ASSIGN_OR_RETURN(bool busy, active.step());
    if (busy) {
      return Status::FailedPrecondition("session '" + run.session_id + "' already has an active run (" +
                                        active.text(0) + ")");
    }
    KEEL_ASSIGN_OR_RETURN(id, insert_run_locked(run));
    NewMessage m{id, task, 0, 0};
    KEEL_TRY(append_locked(run.session_id, std::span<const NewMessage>(&m, 1)).status());
    ServerCheckpoint c;
    c.run_id = id;
    c.session_id = run.session_id;
    c.settings = settings;
    c.owner = holder.owner;
    c.lease_until_ms = holder.owner.empty() ? 0 : now_ms() + holder.duration_ms;
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
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare(std::string(kCheckpointColumns) +
                                                " FROM server_checkpoints ORDER BY updated_ms, run_id"));
  return read_checkpoints(stmt);
}

}  // namespace keel::detail
