// Runs (one agent task inside a session) and the log of their tool executions.
#include "store/sql_store.hpp"

namespace keel {

std::string_view run_state_name(RunState state) {
  switch (state) {
    case RunState::kRunning:
      return "running";
    case RunState::kWaitingApproval:
      return "waiting_approval";
    case RunState::kFinished:
      return "finished";
    case RunState::kFailed:
      return "failed";
    case RunState::kAborted:
      return "aborted";
  }
  return "failed";
}

bool run_state_is_terminal(RunState state) {
  return state == RunState::kFinished || state == RunState::kFailed || state == RunState::kAborted;
}

namespace detail {
namespace {

// Macros so each query is one string literal (no run-time concatenation).
#define KEEL_RUN_SELECT                                                                                       \
  "SELECT id, session_id, task, state, rounds, prompt_tokens, completion_tokens, answer, error, started_ms, " \
  "ended_ms, checkpoint FROM runs "

#define KEEL_TOOL_RUN_SELECT                                                                                      \
  "SELECT id, run_id, call_id, tool, alias, raw_args, resolved_args, started_ms, ended_ms, duration_ms, status, " \
  "result, error FROM tool_runs "

Result<RunState> parse_run_state(std::string_view name) {
  for (RunState s :
       {RunState::kRunning, RunState::kWaitingApproval, RunState::kFinished, RunState::kFailed, RunState::kAborted}) {
    if (run_state_name(s) == name) return s;
  }
  return Status::FailedPrecondition("stored run state '" + std::string(name) + "' is unknown");
}

Result<ToolStatus> parse_tool_status(std::string_view name) {
  for (ToolStatus s : {ToolStatus::kOk, ToolStatus::kError, ToolStatus::kTimeout, ToolStatus::kDenied,
                       ToolStatus::kBlocked, ToolStatus::kCancelled}) {
    if (tool_status_name(s) == name) return s;
  }
  return Status::FailedPrecondition("stored tool status '" + std::string(name) + "' is unknown");
}

Result<RunRecord> read_run(const Stmt& stmt) {
  RunRecord r;
  r.id = stmt.text(0);
  r.session_id = stmt.text(1);
  r.task = stmt.text(2);
  KEEL_ASSIGN_OR_RETURN(r.state, parse_run_state(stmt.text(3)));
  r.rounds = static_cast<int>(stmt.int64(4));
  r.usage.prompt_tokens = stmt.int64(5);
  r.usage.completion_tokens = stmt.int64(6);
  r.answer = stmt.text(7);
  r.error = stmt.text(8);
  r.started_ms = stmt.int64(9);
  if (!stmt.is_null(10)) r.ended_ms = stmt.int64(10);
  if (!stmt.is_null(11)) r.checkpoint = stmt.text(11);
  return r;
}

Status no_run(std::string_view id) {
  return Status::NotFound("no run '" + std::string(id) + "'");
}

}  // namespace

Result<std::vector<RunRecord>> SqlStore::query_runs_locked(std::string_view sql, std::string_view arg) {
  KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare(sql));
  if (!arg.empty()) stmt.bind(1, arg);
  std::vector<RunRecord> runs;
  while (true) {
    KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
    if (!row) return runs;
    KEEL_ASSIGN_OR_RETURN(RunRecord run, read_run(stmt));
    runs.push_back(std::move(run));
  }
}

Result<std::string> SqlStore::insert_run_locked(const RunInfo& info) {
  std::string id = info.id.empty() ? random_id("r_") : info.id;
  // 32 hex digits now; 16 in runs stored by earlier versions.
  bool well_formed = (id.size() == 34 || id.size() == 18) && id.rfind("r_", 0) == 0 &&
                     id.find_first_not_of("0123456789abcdef", 2) == std::string::npos;
  if (!well_formed) {
    return Status::InvalidArgument("run id '" + id + "' is not 'r_' and 32 lowercase hex digits");
  }
  KEEL_TRY(require_session_locked(info.session_id));
  KEEL_ASSIGN_OR_RETURN(
      Stmt stmt,
      db_->prepare("INSERT INTO runs (id, session_id, task, state, started_ms) VALUES (?1, ?2, ?3, 'running', ?4)"));
  stmt.bind(1, id).bind(2, info.session_id).bind(3, info.task).bind(4, or_now(info.started_ms));
  KEEL_TRY(stmt.run());
  return id;
}

Result<std::string> SqlStore::create_run(const RunInfo& info) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  std::string id;
  KEEL_TRY(db_->write([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(id, insert_run_locked(info));
    return Status::Ok();
  }));
  return id;
}

Status SqlStore::update_run(std::string_view id, const RunUpdate& update) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  int64_t now = now_ms();
  return db_->write([&]() -> Status {
    // Unset fields bind NULL and keep the stored value. ?10 says what the new state implies for
    // ended_ms: NULL no state given, 1 terminal (stamp it once), 0 not terminal (clear it).
    KEEL_ASSIGN_OR_RETURN(
        Stmt stmt,
        db_->prepare(
            "UPDATE runs SET state = coalesce(?2, state), rounds = coalesce(?3, rounds), "
            "prompt_tokens = coalesce(?4, prompt_tokens), completion_tokens = coalesce(?5, completion_tokens), "
            "answer = coalesce(?6, answer), error = coalesce(?7, error), "
            "checkpoint = CASE WHEN CAST(?8 AS TEXT) IS NULL THEN checkpoint WHEN ?8 = '' THEN NULL ELSE ?8 END, "
            "ended_ms = CASE WHEN CAST(?9 AS BIGINT) IS NOT NULL THEN ?9 WHEN CAST(?10 AS BIGINT) = 1 "
            "THEN coalesce(ended_ms, CAST(?11 AS BIGINT)) WHEN ?10 = 0 THEN NULL ELSE ended_ms END WHERE id = ?1"));
    stmt.bind(1, id);
    if (update.state) stmt.bind(2, run_state_name(*update.state));
    if (update.rounds) stmt.bind(3, int64_t{*update.rounds});
    if (update.usage) stmt.bind(4, update.usage->prompt_tokens).bind(5, update.usage->completion_tokens);
    if (update.answer) stmt.bind(6, *update.answer);
    if (update.error) stmt.bind(7, *update.error);
    if (update.checkpoint) stmt.bind(8, *update.checkpoint);
    if (update.ended_ms) stmt.bind(9, *update.ended_ms);
    if (update.state) stmt.bind(10, int64_t{run_state_is_terminal(*update.state) ? 1 : 0});
    stmt.bind(11, now);
    KEEL_TRY(stmt.run());
    return db_->changes() > 0 ? Status::Ok() : no_run(id);
  });
}

Result<RunRecord> SqlStore::get_run(std::string_view id) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(auto runs, query_runs_locked(KEEL_RUN_SELECT "WHERE id = ?1", id));
  if (runs.empty()) return no_run(id);
  return std::move(runs.front());
}

Result<std::vector<RunRecord>> SqlStore::list_runs(std::string_view session_id) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(
      auto runs, query_runs_locked(KEEL_RUN_SELECT "WHERE session_id = ?1 ORDER BY started_ms, rowid", session_id));
  if (runs.empty()) KEEL_TRY(require_session_locked(session_id));
  return runs;
}

Result<RunRecord> SqlStore::latest_run(std::string_view session_id) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  KEEL_ASSIGN_OR_RETURN(auto runs, query_runs_locked(KEEL_RUN_SELECT "WHERE session_id = ?1 "
                                                                     "ORDER BY started_ms DESC, rowid DESC LIMIT 1",
                                                     session_id));
  if (!runs.empty()) return std::move(runs.front());
  KEEL_TRY(require_session_locked(session_id));
  return Status::NotFound("session '" + std::string(session_id) + "' has no runs");
}

Result<std::vector<RunRecord>> SqlStore::find_interrupted_runs() {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  return query_runs_locked(KEEL_RUN_SELECT "WHERE state IN ('running', 'waiting_approval') ORDER BY started_ms, rowid",
                           "");
}

Result<int64_t> SqlStore::record_tool_run(const ToolRunRecord& r) {
  if (r.run_id.empty()) return Status::InvalidArgument("a tool run needs the id of the run it belongs to");
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  int64_t id = 0;
  KEEL_TRY(db_->write([&]() -> Status {
    KEEL_TRY(require_run_locked(r.run_id));
    KEEL_ASSIGN_OR_RETURN(
        id, insert_with_id(*db_,
                           "INSERT INTO tool_runs (run_id, call_id, tool, alias, raw_args, resolved_args, started_ms, "
                           "ended_ms, duration_ms, status, result, error) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                           [&](Stmt& stmt) {
                             stmt.bind(1, r.run_id).bind(2, r.call_id).bind(3, r.tool);
                             stmt.bind(4, r.alias).bind(5, r.raw_args).bind(6, r.resolved_args);
                             stmt.bind(7, r.started_ms).bind(8, r.ended_ms).bind(9, r.duration_ms);
                             stmt.bind(10, tool_status_name(r.status)).bind(11, r.result);
                             stmt.bind(12, r.error);
                           }));
    return Status::Ok();
  }));
  return id;
}

Status SqlStore::write_together(const std::function<Status()>& writes) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  return db_->write([&]() -> Status { return writes(); });
}

Result<std::vector<ToolRunRecord>> SqlStore::list_tool_runs(std::string_view run_id) {
  KEEL_ASSIGN_OR_RETURN(auto lease, pool_.lease());
  std::vector<ToolRunRecord> out;
  {
    KEEL_ASSIGN_OR_RETURN(Stmt stmt, db_->prepare(KEEL_TOOL_RUN_SELECT "WHERE run_id = ?1 ORDER BY id"));
    stmt.bind(1, run_id);
    while (true) {
      KEEL_ASSIGN_OR_RETURN(bool row, stmt.step());
      if (!row) break;
      ToolRunRecord r;
      r.id = stmt.int64(0);
      r.run_id = stmt.text(1);
      r.call_id = stmt.text(2);
      r.tool = stmt.text(3);
      r.alias = stmt.text(4);
      r.raw_args = stmt.text(5);
      r.resolved_args = stmt.text(6);
      r.started_ms = stmt.int64(7);
      r.ended_ms = stmt.int64(8);
      r.duration_ms = stmt.int64(9);
      KEEL_ASSIGN_OR_RETURN(r.status, parse_tool_status(stmt.text(10)));
      r.result = stmt.text(11);
      r.error = stmt.text(12);
      out.push_back(std::move(r));
    }
  }
  if (out.empty() && !run_id.empty()) KEEL_TRY(require_run_locked(run_id));
  return out;
}

}  // namespace detail
}  // namespace keel
