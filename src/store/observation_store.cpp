// The autopilot's tables: observations (unique by fingerprint within a workspace's source, moved
// between states only from the state the mover saw), the model spend its hourly caps count, and
// the latest status document of each daemon. Every lookup is scoped to the workspace.
#include <nlohmann/json.hpp>

#include "store/sql_store.hpp"

namespace keel {

std::string_view observation_state_name(ObservationState state) {
  switch (state) {
    case ObservationState::kPending: return "pending";
    case ObservationState::kProcessing: return "processing";
    case ObservationState::kDone: return "done";
    case ObservationState::kDismissed: return "dismissed";
    case ObservationState::kStalled: return "stalled";
  }
  return "pending";
}

std::optional<ObservationState> parse_observation_state(std::string_view name) {
  for (ObservationState s : {ObservationState::kPending, ObservationState::kProcessing, ObservationState::kDone,
                             ObservationState::kDismissed, ObservationState::kStalled}) {
    if (observation_state_name(s) == name) return s;
  }
  return std::nullopt;
}

}  // namespace keel

namespace keel::detail {
namespace {

#define KEEL_OBSERVATION_COLUMNS                                                                           \
  "id, workspace, source, fingerprint, kind, subject, payload, state, failures, last_error, result, " \
  "created_ms, updated_ms, next_attempt_ms"

Observation read_observation(const Stmt& stmt) {
  Observation o;
  o.id = stmt.int64(0);
  o.workspace = stmt.text(1);
  o.source = stmt.text(2);
  o.fingerprint = stmt.text(3);
  o.kind = stmt.text(4);
  o.subject = stmt.text(5);
  o.payload = stmt.text(6);
  o.state = static_cast<ObservationState>(stmt.int64(7));
  o.failures = static_cast<int>(stmt.int64(8));
  o.last_error = stmt.text(9);
  o.result = stmt.text(10);
  o.created_ms = stmt.int64(11);
  o.updated_ms = stmt.int64(12);
  o.next_attempt_ms = stmt.int64(13);
  return o;
}

bool valid_state(ObservationState s) {
  const auto v = static_cast<int>(s);
  return v >= static_cast<int>(ObservationState::kPending) && v <= static_cast<int>(ObservationState::kStalled);
}

}  // namespace

Result<std::optional<int64_t>> SqlStore::add_observation(const Observation& o) {
  if (o.source.empty()) return Status::InvalidArgument("an observation needs the name of its source");
  if (o.fingerprint.empty()) return Status::InvalidArgument("an observation needs a fingerprint");
  if (!valid_state(o.state)) return Status::InvalidArgument("observation state out of range");
  const std::string payload = o.payload.empty() ? "{}" : o.payload;
  if (!nlohmann::json::parse(payload, nullptr, false).is_object()) {
    return Status::InvalidArgument("an observation's payload must be a JSON object");
  }
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  const int64_t now = now_ms();
  std::optional<int64_t> id;
  KEEL_TRY(db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(
        Stmt stmt, db_->prepare("INSERT INTO observations (workspace, source, fingerprint, kind, subject, payload, state, "
                                "failures, last_error, result, created_ms, updated_ms, next_attempt_ms) "
                                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) "
                                "ON CONFLICT (workspace, source, fingerprint) DO NOTHING RETURNING id"));
    stmt.bind(1, o.workspace).bind(2, o.source).bind(3, o.fingerprint).bind(4, o.kind).bind(5, o.subject);
    stmt.bind(6, payload).bind(7, static_cast<int64_t>(o.state)).bind(8, static_cast<int64_t>(o.failures));
    stmt.bind(9, o.last_error).bind(10, o.result).bind(11, o.created_ms != 0 ? o.created_ms : now).bind(12, now);
    stmt.bind(13, o.next_attempt_ms);
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (row) id = stmt.int64(0);
    KEEL_TRY(stmt.run());
    return Status::Ok();
  }));
  return id;
}

Result<Observation> SqlStore::get_observation(int64_t id) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT " KEEL_OBSERVATION_COLUMNS " FROM observations WHERE id = ?1"));
  stmt.bind(1, id);
  KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
  if (!row) return Status::NotFound("no observation " + std::to_string(id) + " (`keel autopilot observations` lists them)");
  return read_observation(stmt);
}

Result<std::vector<Observation>> SqlStore::list_observations(std::string_view workspace,
                                                                const ObservationQuery& query) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(
      Stmt stmt,
      db_->prepare(query.oldest_first
                       ? "SELECT " KEEL_OBSERVATION_COLUMNS " FROM observations WHERE workspace = ?1 "
                         "AND (?2 < 0 OR state = ?2) AND (?3 = '' OR source = ?3) AND (CAST(?4 AS BIGINT) IS NULL OR next_attempt_ms <= ?4) "
                         "ORDER BY id LIMIT ?5"
                       : "SELECT " KEEL_OBSERVATION_COLUMNS " FROM observations WHERE workspace = ?1 "
                         "AND (?2 < 0 OR state = ?2) AND (?3 = '' OR source = ?3) AND (CAST(?4 AS BIGINT) IS NULL OR next_attempt_ms <= ?4) "
                         "ORDER BY id DESC LIMIT ?5"));
  stmt.bind(1, workspace).bind(2, query.state ? static_cast<int64_t>(*query.state) : int64_t{-1}).bind(3, query.source);
  if (query.due_by_ms) stmt.bind(4, *query.due_by_ms);
  stmt.bind(5, sql_limit(query.limit));
  std::vector<Observation> out;
  while (true) {
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (!row) return out;
    out.push_back(read_observation(stmt));
  }
}

Result<std::vector<std::pair<ObservationState, int64_t>>> SqlStore::count_observations(std::string_view workspace) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT state, COUNT(*) FROM observations WHERE workspace = ?1 "
                                                "GROUP BY state ORDER BY state"));
  stmt.bind(1, workspace);
  std::vector<std::pair<ObservationState, int64_t>> out;
  while (true) {
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (!row) return out;
    out.emplace_back(static_cast<ObservationState>(stmt.int64(0)), stmt.int64(1));
  }
}

Status SqlStore::move_observation(int64_t id, ObservationState from, const ObservationMove& move) {
  if (!valid_state(move.state)) return Status::InvalidArgument("observation state out of range");
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  const int64_t now = now_ms();
  return db_->write([&]() -> Status {
    // One conditional UPDATE, so two workers moving the same observation cannot both succeed on
    // either engine; the state is read only to say why nothing moved.
    KEEL_ASSIGN_OR_RETURN(Stmt set, db_->prepare("UPDATE observations SET state = ?2, failures = ?3, last_error = ?4, "
                                                 "result = ?5, next_attempt_ms = ?6, updated_ms = ?7 "
                                                 "WHERE id = ?1 AND state = ?8"));
    set.bind(1, id).bind(2, static_cast<int64_t>(move.state)).bind(3, static_cast<int64_t>(move.failures));
    set.bind(4, move.last_error).bind(5, move.result).bind(6, move.next_attempt_ms).bind(7, now);
    set.bind(8, static_cast<int64_t>(from));
    KEEL_TRY(set.run());
    if (db_->changes() > 0) return Status::Ok();
    KEEL_ASSIGN_OR_RETURN(Stmt get, db_->prepare("SELECT state FROM observations WHERE id = ?1"));
    get.bind(1, id);
    KEEL_ASSIGN_OR_RETURN(bool row, get.step());
    if (!row) return Status::NotFound("no observation " + std::to_string(id));
    const auto current = static_cast<ObservationState>(get.int64(0));
    std::string m = "observation " + std::to_string(id) + " is ";
    m.append(observation_state_name(current)).append(", not ").append(observation_state_name(from));
    return Status::FailedPrecondition(std::move(m));
  });
}

Status SqlStore::record_spend(const SpendRecord& spend) {
  if (spend.scope.empty()) return Status::InvalidArgument("a spend record needs a scope");
  if (spend.tokens < 0 || !(spend.cost >= 0)) return Status::InvalidArgument("spend cannot be negative");
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  const int64_t at = or_now(spend.at_ms);
  return db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("INSERT INTO spend (workspace, scope, at_ms, tokens, cost) "
                                                  "VALUES (?1, ?2, ?3, ?4, ?5)"));
    stmt.bind(1, spend.workspace).bind(2, spend.scope).bind(3, at).bind(4, spend.tokens).bind_double(5, spend.cost);
    return stmt.run();
  });
}

Result<SpendTotal> SqlStore::spend_since(std::string_view workspace, std::string_view scope, int64_t since_ms) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT COALESCE(SUM(tokens), 0), COALESCE(SUM(cost), 0) FROM spend "
                                                "WHERE workspace = ?1 AND scope = ?2 AND at_ms >= ?3"));
  stmt.bind(1, workspace).bind(2, scope).bind(3, since_ms);
  KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
  SpendTotal total;
  if (row) {
    total.tokens = stmt.int64(0);
    total.cost = stmt.real(1);
  }
  return total;
}

Status SqlStore::put_daemon_status(std::string_view workspace, std::string_view name, std::string_view status) {
  if (name.empty()) return Status::InvalidArgument("a daemon status needs a name");
  if (!nlohmann::json::parse(status, nullptr, false).is_object()) {
    return Status::InvalidArgument("a daemon status must be a JSON object");
  }
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  const int64_t now = now_ms();
  return db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("INSERT INTO daemon_status (workspace, name, status, updated_ms) "
                                                  "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (workspace, name) DO UPDATE "
                                                  "SET status = excluded.status, updated_ms = excluded.updated_ms"));
    stmt.bind(1, workspace).bind(2, name).bind(3, status).bind(4, now);
    return stmt.run();
  });
}

Result<std::optional<std::string>> SqlStore::get_daemon_status(std::string_view workspace, std::string_view name) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare("SELECT status FROM daemon_status WHERE workspace = ?1 AND name = ?2"));
  stmt.bind(1, workspace).bind(2, name);
  KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(stmt.text(0));
}

}  // namespace keel::detail
