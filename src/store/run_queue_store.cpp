// keel serve's run queue: the server checkpoints of a workspace, each held by at most one instance
// under a lease. PostgreSQL claims with FOR UPDATE SKIP LOCKED, so instances claiming at the same
// moment take different runs instead of waiting on each other; SQLite's write transaction already
// admits one writer at a time.
#include <algorithm>
#include <cstdint>
#include <string>

#include "store/sql_store.hpp"

namespace keel::detail {

Result<std::vector<ServerCheckpoint>> SqlStore::claim_server_runs(std::string_view workspace, const ServerLease& holder,
                                                                  size_t limit) {
  if (holder.owner.empty()) return Status::InvalidArgument("a claim needs the claiming instance's id");
  if (holder.duration_ms <= 0) return Status::InvalidArgument("a lease must last longer than 0 ms");
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  std::vector<ServerCheckpoint> claimed;
  const int64_t now = now_ms();
  KEEL_TRY(db_->write([&]() -> Status {
    std::string sql = std::string(kCheckpointColumns) +
                      " FROM server_checkpoints WHERE workspace = ?1 AND (owner = '' OR lease_until_ms < ?2) "
                      "ORDER BY updated_ms, run_id LIMIT ?3";
    if (db_->dialect() == SqlDialect::kPostgres) sql += " FOR UPDATE SKIP LOCKED";
    KEEL_ASSIGN_OR_RETURN(Stmt select, db_->prepare(sql));
    select.bind(1, workspace).bind(2, now).bind(3, sql_limit(static_cast<int64_t>(std::min<size_t>(limit, INT64_MAX))));
    KEEL_ASSIGN_OR_RETURN(claimed, read_checkpoints(select));
    for (ServerCheckpoint& c : claimed) {
      KEEL_ASSIGN_OR_RETURN(Stmt update, db_->prepare("UPDATE server_checkpoints SET owner = ?2, lease_until_ms = ?3 "
                                                      "WHERE run_id = ?1"));
      update.bind(1, c.run_id).bind(2, holder.owner).bind(3, now + holder.duration_ms);
      KEEL_TRY(update.run());
    }
    return Status::Ok();
  }));
  return claimed;
}

Result<std::vector<std::string>> SqlStore::renew_server_leases(const ServerLease& holder) {
  if (holder.owner.empty()) return std::vector<std::string>{};
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  std::vector<std::string> held;
  KEEL_TRY(db_->write([&]() -> Status {
    held.clear();  // a transaction the database dropped runs again
    KEEL_ASSIGN_OR_RETURN(Stmt update, db_->prepare("UPDATE server_checkpoints SET lease_until_ms = ?2 "
                                                    "WHERE owner = ?1 RETURNING run_id"));
    update.bind(1, holder.owner).bind(2, now_ms() + holder.duration_ms);
    for (;;) {
      KEEL_ASSIGN_OR_RETURN(bool row, update.step());
      if (!row) break;
      held.push_back(update.text(0));
    }
    return Status::Ok();
  }));
  std::sort(held.begin(), held.end());
  return held;
}

Status SqlStore::release_server_runs(std::string_view workspace, std::string_view owner) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  return db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(
        Stmt update, db_->prepare("UPDATE server_checkpoints SET owner = '', lease_until_ms = 0 "
                                  "WHERE workspace = ?1 AND owner <> '' AND (CAST(?2 AS TEXT) = '' OR owner = ?2)"));
    update.bind(1, workspace).bind(2, owner);
    return update.run();
  });
}

Result<ServerQueueStats> SqlStore::server_queue(std::string_view workspace) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT "
                                                "coalesce(sum(CASE WHEN owner <> '' AND lease_until_ms >= ?2 "
                                                "THEN 1 ELSE 0 END), 0), "
                                                "coalesce(sum(CASE WHEN owner = '' OR lease_until_ms < ?2 "
                                                "THEN 1 ELSE 0 END), 0), "
                                                "count(DISTINCT CASE WHEN owner <> '' AND lease_until_ms >= ?2 "
                                                "THEN owner END) "
                                                "FROM server_checkpoints WHERE workspace = ?1"));
  stmt.bind(1, workspace).bind(2, now_ms());
  ServerQueueStats out;
  KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
  if (row) {
    out.held = stmt.int64(0);
    out.unclaimed = stmt.int64(1);
    out.instances = stmt.int64(2);
  }
  return out;
}

Status SqlStore::send_server_control(const ServerControl& control) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  return db_->write([&]() -> Status {
    KEEL_TRY(require_run_locked(control.run_id));
    KEEL_ASSIGN_OR_RETURN(Stmt insert, db_->prepare("INSERT INTO server_controls (run_id, kind, body, created_ms) "
                                                    "VALUES (?1, ?2, ?3, ?4)"));
    insert.bind(1, control.run_id).bind(2, control.kind).bind(3, control.body).bind(4, now_ms());
    KEEL_TRY(insert.run());
    return notify_keys_locked("controls", {control.run_id});
  });
}

Result<std::vector<ServerControl>> SqlStore::take_server_controls(std::string_view run_id) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  std::vector<ServerControl> out;
  KEEL_TRY(db_->write([&]() -> Status {
    out.clear();
    KEEL_ASSIGN_OR_RETURN(Stmt take, db_->prepare("DELETE FROM server_controls WHERE run_id = ?1 "
                                                  "RETURNING id, kind, body"));
    take.bind(1, run_id);
    for (;;) {
      KEEL_ASSIGN_OR_RETURN(bool row, take.step());
      if (!row) break;
      ServerControl c;
      c.id = take.int64(0);
      c.run_id = std::string(run_id);
      c.kind = take.text(1);
      c.body = take.text(2);
      out.push_back(std::move(c));
    }
    return Status::Ok();
  }));
  std::sort(out.begin(), out.end(), [](const ServerControl& a, const ServerControl& b) { return a.id < b.id; });
  return out;
}

Result<std::unique_ptr<StoreWatch>> SqlStore::watch_server_controls(std::function<void(const std::string&)> sent) {
  return watch_keys("controls", std::move(sent));
}

}  // namespace keel::detail
