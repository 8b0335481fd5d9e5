#include "store/migrations.hpp"

#include <array>
#include <string>
#include <vector>

#include "store/sql_store.hpp"

namespace keel::detail {
namespace {

// Version 1: conversations and what ran in them.
constexpr std::string_view kCoreTables = R"sql(
PRAGMA application_id = 1801807212;

CREATE TABLE sessions (
  id          TEXT PRIMARY KEY,
  title       TEXT NOT NULL DEFAULT '',
  workspace   TEXT NOT NULL DEFAULT '',
  model       TEXT NOT NULL DEFAULT '',
  created_ms  INTEGER NOT NULL,
  updated_ms  INTEGER NOT NULL,
  parent_id   TEXT REFERENCES sessions(id) ON DELETE SET NULL,
  hidden      INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1))
);
CREATE INDEX sessions_by_update ON sessions(updated_ms);
CREATE INDEX sessions_by_workspace ON sessions(workspace, updated_ms);
CREATE INDEX sessions_by_parent ON sessions(parent_id);

CREATE TABLE runs (
  id                 TEXT PRIMARY KEY,
  session_id         TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  task               TEXT NOT NULL DEFAULT '',
  state              TEXT NOT NULL
                     CHECK (state IN ('running', 'waiting_approval', 'finished', 'failed', 'aborted')),
  rounds             INTEGER NOT NULL DEFAULT 0,
  prompt_tokens      INTEGER NOT NULL DEFAULT 0,
  completion_tokens  INTEGER NOT NULL DEFAULT 0,
  answer             TEXT NOT NULL DEFAULT '',
  error              TEXT NOT NULL DEFAULT '',
  started_ms         INTEGER NOT NULL,
  ended_ms           INTEGER,
  checkpoint         TEXT
);
CREATE INDEX runs_by_session ON runs(session_id, started_ms);
CREATE INDEX runs_unfinished ON runs(started_ms) WHERE state IN ('running', 'waiting_approval');

CREATE TABLE messages (
  session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq           INTEGER NOT NULL CHECK (seq >= 1),
  run_id        TEXT REFERENCES runs(id) ON DELETE SET NULL,
  role          TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
  content       TEXT NOT NULL DEFAULT '',
  reasoning     TEXT NOT NULL DEFAULT '',
  tool_calls    TEXT,
  tool_call_id  TEXT NOT NULL DEFAULT '',
  name          TEXT NOT NULL DEFAULT '',
  metadata      TEXT,
  tokens        INTEGER NOT NULL DEFAULT 0,
  created_ms    INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE INDEX messages_by_run ON messages(run_id);

CREATE TABLE tool_runs (
  id             INTEGER PRIMARY KEY,
  run_id         TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  call_id        TEXT NOT NULL DEFAULT '',
  tool           TEXT NOT NULL,
  alias          TEXT NOT NULL DEFAULT '',
  raw_args       TEXT NOT NULL DEFAULT '',
  resolved_args  TEXT NOT NULL DEFAULT '',
  started_ms     INTEGER NOT NULL,
  ended_ms       INTEGER NOT NULL,
  duration_ms    INTEGER NOT NULL,
  status         TEXT NOT NULL
                 CHECK (status IN ('ok', 'error', 'timeout', 'denied', 'blocked', 'cancelled')),
  result         TEXT NOT NULL DEFAULT '',
  error          TEXT NOT NULL DEFAULT ''
);
CREATE INDEX tool_runs_by_run ON tool_runs(run_id, id);

CREATE TABLE approvals (
  id          INTEGER PRIMARY KEY,
  run_id      TEXT,
  session_id  TEXT,
  workspace   TEXT NOT NULL DEFAULT '',
  tool        TEXT NOT NULL,
  arguments   TEXT NOT NULL DEFAULT '',
  verdict     TEXT NOT NULL CHECK (verdict IN ('allow', 'allow_always', 'deny')),
  reason      TEXT NOT NULL DEFAULT '',
  decided_ms  INTEGER NOT NULL
);
CREATE INDEX approvals_by_run ON approvals(run_id);
CREATE INDEX approvals_by_session ON approvals(session_id);

CREATE TABLE approval_rules (
  workspace   TEXT NOT NULL,
  tool        TEXT NOT NULL,
  pattern     TEXT NOT NULL DEFAULT '',
  verdict     TEXT NOT NULL CHECK (verdict IN ('allow', 'deny')),
  created_ms  INTEGER NOT NULL,
  UNIQUE (workspace, tool, pattern)
);
)sql";

// Version 2: long-term memory with full-text search, the TTL cache, trace spans.
constexpr std::string_view kMemoryCacheSpans = R"sql(
CREATE TABLE memory (
  id          INTEGER PRIMARY KEY,
  workspace   TEXT NOT NULL DEFAULT '',
  text        TEXT NOT NULL,
  tags        TEXT NOT NULL DEFAULT '',
  created_ms  INTEGER NOT NULL,
  updated_ms  INTEGER NOT NULL
);
CREATE INDEX memory_by_workspace ON memory(workspace, updated_ms);

CREATE VIRTUAL TABLE memory_fts USING fts5(
  text, tags, content = 'memory', content_rowid = 'id',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memory_fts_insert AFTER INSERT ON memory BEGIN
  INSERT INTO memory_fts(rowid, text, tags) VALUES (new.id, new.text, new.tags);
END;
CREATE TRIGGER memory_fts_delete AFTER DELETE ON memory BEGIN
  INSERT INTO memory_fts(memory_fts, rowid, text, tags) VALUES ('delete', old.id, old.text, old.tags);
END;
CREATE TRIGGER memory_fts_update AFTER UPDATE ON memory BEGIN
  INSERT INTO memory_fts(memory_fts, rowid, text, tags) VALUES ('delete', old.id, old.text, old.tags);
  INSERT INTO memory_fts(rowid, text, tags) VALUES (new.id, new.text, new.tags);
END;

CREATE TABLE cache (
  scope       TEXT NOT NULL,
  key         TEXT NOT NULL,
  value       BLOB NOT NULL,
  bytes       INTEGER NOT NULL,
  created_ms  INTEGER NOT NULL,
  expires_ms  INTEGER,
  PRIMARY KEY (scope, key)
);
CREATE INDEX cache_by_age ON cache(scope, created_ms);

CREATE TABLE spans (
  trace_id        TEXT NOT NULL,
  span_id         TEXT NOT NULL,
  parent_span_id  TEXT,
  session_id      TEXT REFERENCES sessions(id) ON DELETE CASCADE,
  run_id          TEXT REFERENCES runs(id) ON DELETE CASCADE,
  kind            TEXT NOT NULL DEFAULT '',
  name            TEXT NOT NULL DEFAULT '',
  start_us        INTEGER NOT NULL,
  duration_us     INTEGER NOT NULL DEFAULT 0,
  status          TEXT NOT NULL DEFAULT '',
  attributes      TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (trace_id, span_id)
);
CREATE INDEX spans_by_trace ON spans(trace_id, start_us);
CREATE INDEX spans_by_session ON spans(session_id);
CREATE INDEX spans_by_run ON spans(run_id);
)sql";

// Version 3: todos, per workspace.
constexpr std::string_view kTodos = R"sql(
CREATE TABLE todos (
  id            INTEGER PRIMARY KEY,
  workspace     TEXT NOT NULL DEFAULT '',
  text          TEXT NOT NULL CHECK (text <> ''),
  priority      INTEGER NOT NULL DEFAULT 0 CHECK (priority BETWEEN 0 AND 3),
  notes         TEXT NOT NULL DEFAULT '',
  created_ms    INTEGER NOT NULL,
  completed_ms  INTEGER
);
CREATE INDEX todos_by_workspace ON todos(workspace, completed_ms);
)sql";

// Version 4: skills' per-workspace settings and the action proposals of executable skills.
constexpr std::string_view kSkills = R"sql(
CREATE TABLE skill_settings (
  workspace   TEXT NOT NULL DEFAULT '',
  skill       TEXT NOT NULL CHECK (skill <> ''),
  enabled     INTEGER CHECK (enabled IN (0, 1)),
  auto_run    INTEGER CHECK (auto_run IN (0, 1)),
  updated_ms  INTEGER NOT NULL,
  PRIMARY KEY (workspace, skill)
);

CREATE TABLE skill_proposals (
  id          INTEGER PRIMARY KEY,
  workspace   TEXT NOT NULL DEFAULT '',
  skill       TEXT NOT NULL,
  run_id      TEXT NOT NULL DEFAULT '',
  tool        TEXT NOT NULL DEFAULT '',
  arguments   TEXT NOT NULL DEFAULT '{}',
  output      TEXT NOT NULL DEFAULT 'null',
  summary     TEXT NOT NULL DEFAULT '',
  status      INTEGER NOT NULL DEFAULT 0 CHECK (status BETWEEN 0 AND 4),
  result      TEXT NOT NULL DEFAULT '',
  created_ms  INTEGER NOT NULL,
  decided_ms  INTEGER
);
CREATE INDEX skill_proposals_by_workspace ON skill_proposals(workspace, status, id);
)sql";

// Version 5: keel serve's event log per session (for resumable event streams) and the runs it
// must take up again after a restart.
constexpr std::string_view kServer = R"sql(
CREATE TABLE server_events (
  session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq         INTEGER NOT NULL,
  run_id      TEXT NOT NULL DEFAULT '',
  type        TEXT NOT NULL,
  data        TEXT NOT NULL,
  created_ms  INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;

CREATE TABLE server_checkpoints (
  run_id      TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  settings    TEXT NOT NULL DEFAULT '{}',
  waiting     TEXT NOT NULL DEFAULT '',
  updated_ms  INTEGER NOT NULL
);
)sql";

// Version 6: skill proposals get a public id (what keel serve's clients name them by) that
// cannot be guessed from another; existing proposals get one in the same step.
constexpr std::string_view kProposalPublicIds = R"sql(
ALTER TABLE skill_proposals ADD COLUMN public_id TEXT;
CREATE UNIQUE INDEX skill_proposals_by_public_id ON skill_proposals(public_id);
)sql";

Status fill_proposal_public_ids(Db& db) {
  std::vector<int64_t> ids;
  {
    KEEL_ASSIGN_OR_RETURN(Stmt select, db.prepare("SELECT id FROM skill_proposals WHERE public_id IS NULL"));
    for (;;) {
      KEEL_ASSIGN_OR_RETURN(bool row, select.step());
      if (!row) break;
      ids.push_back(select.int64(0));
    }
  }
  for (int64_t id : ids) {
    KEEL_ASSIGN_OR_RETURN(Stmt update, db.prepare("UPDATE skill_proposals SET public_id = ?1 WHERE id = ?2"));
    update.bind(1, random_id("sp_")).bind(2, id);
    KEEL_TRY(update.run());
  }
  return Status::Ok();
}

// Version 7: the MCP tool lock: each MCP tool's definition as accepted per workspace, so a
// server that changes a tool between runs is noticed.
constexpr std::string_view kMcpToolLocks = R"sql(
CREATE TABLE mcp_tool_locks (
  workspace   TEXT NOT NULL,
  server      TEXT NOT NULL,
  tool        TEXT NOT NULL,
  digest      TEXT NOT NULL,
  definition  TEXT NOT NULL,
  accepted_ms INTEGER NOT NULL,
  PRIMARY KEY (workspace, server, tool)
) WITHOUT ROWID;
)sql";

// Version 8: the autopilot's observations (unique by fingerprint per source), the model spend
// its hourly caps are counted against, and the latest status document of each daemon.
constexpr std::string_view kAutopilot = R"sql(
CREATE TABLE observations (
  id               INTEGER PRIMARY KEY,
  workspace        TEXT NOT NULL DEFAULT '',
  source           TEXT NOT NULL CHECK (source <> ''),
  fingerprint      TEXT NOT NULL CHECK (fingerprint <> ''),
  kind             TEXT NOT NULL DEFAULT '',
  subject          TEXT NOT NULL DEFAULT '',
  payload          TEXT NOT NULL DEFAULT '{}',
  state            INTEGER NOT NULL DEFAULT 0 CHECK (state BETWEEN 0 AND 4),
  failures         INTEGER NOT NULL DEFAULT 0,
  last_error       TEXT NOT NULL DEFAULT '',
  result           TEXT NOT NULL DEFAULT '',
  created_ms       INTEGER NOT NULL,
  updated_ms       INTEGER NOT NULL,
  next_attempt_ms  INTEGER NOT NULL DEFAULT 0,
  UNIQUE (workspace, source, fingerprint)
);
CREATE INDEX observations_by_state ON observations(workspace, state, next_attempt_ms, id);

CREATE TABLE spend (
  id         INTEGER PRIMARY KEY,
  workspace  TEXT NOT NULL DEFAULT '',
  scope      TEXT NOT NULL,
  at_ms      INTEGER NOT NULL,
  tokens     INTEGER NOT NULL DEFAULT 0,
  cost       REAL NOT NULL DEFAULT 0
);
CREATE INDEX spend_by_time ON spend(workspace, scope, at_ms);

CREATE TABLE daemon_status (
  workspace   TEXT NOT NULL DEFAULT '',
  name        TEXT NOT NULL,
  status      TEXT NOT NULL,
  updated_ms  INTEGER NOT NULL,
  PRIMARY KEY (workspace, name)
) WITHOUT ROWID;
)sql";

// Version 9: the checkpoints become keel serve's run queue, shared by every instance serving a
// workspace from the database: the workspace of each run, the instance that holds it and until
// when its lease holds (an instance that dies stops renewing, and another takes its runs up). A
// session has one active run at a time, whichever instance accepted it: one checkpoint each. What a
// client asks of a run held by another instance (abort, steer, a decision, an answer) waits in
// server_controls until that instance takes it.
constexpr std::string_view kRunQueue = R"sql(
ALTER TABLE server_checkpoints ADD COLUMN workspace TEXT NOT NULL DEFAULT '';
ALTER TABLE server_checkpoints ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE server_checkpoints ADD COLUMN lease_until_ms INTEGER NOT NULL DEFAULT 0;
UPDATE server_checkpoints SET workspace = coalesce((SELECT workspace FROM sessions
  WHERE sessions.id = server_checkpoints.session_id), '');
DELETE FROM server_checkpoints WHERE EXISTS (SELECT 1 FROM server_checkpoints newer
  WHERE newer.session_id = server_checkpoints.session_id AND (newer.updated_ms > server_checkpoints.updated_ms
    OR (newer.updated_ms = server_checkpoints.updated_ms AND newer.run_id > server_checkpoints.run_id)));
CREATE UNIQUE INDEX server_checkpoints_one_per_session ON server_checkpoints(session_id);
CREATE INDEX server_checkpoints_by_workspace ON server_checkpoints(workspace, updated_ms);
CREATE INDEX server_checkpoints_by_owner ON server_checkpoints(owner);

CREATE TABLE server_controls (
  id          INTEGER PRIMARY KEY,
  run_id      TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  kind        TEXT NOT NULL,
  body        TEXT NOT NULL DEFAULT '{}',
  created_ms  INTEGER NOT NULL
);
CREATE INDEX server_controls_by_run ON server_controls(run_id, id);
)sql";

constexpr std::array<Migration, 9> kMigrations = {{
    {1, kCoreTables},
    {2, kMemoryCacheSpans},
    {3, kTodos},
    {4, kSkills},
    {5, kServer},
    {6, kProposalPublicIds, fill_proposal_public_ids},
    {7, kMcpToolLocks},
    {8, kAutopilot},
    {9, kRunQueue},
}};

}  // namespace

std::span<const Migration> schema_migrations() {
  return kMigrations;
}
int current_schema_version() {
  return kMigrations.back().version;
}

Result<int> read_schema_version(Db& db) {
  KEEL_ASSIGN_OR_RETURN(int64_t version,
                        query_int(db, db.dialect() == SqlDialect::kSqlite
                                                ? "PRAGMA user_version"
                                                : "SELECT version FROM keel_schema WHERE application = 'keel'"));
  return static_cast<int>(version);
}

Result<int> check_database(Db& db, std::span<const Migration> steps) {
  // The first read of the file: a file that is not SQLite fails here, before anything is written.
  KEEL_ASSIGN_OR_RETURN(int version, read_schema_version(db));
  KEEL_ASSIGN_OR_RETURN(int64_t app_id, query_int(db, "PRAGMA application_id"));
  if (app_id != 0 && app_id != kKeelApplicationId) {
    return Status::FailedPrecondition(db.path() +
                                      " is not a keel database (it belongs to another program, "
                                      "application id " +
                                      std::to_string(app_id) + ")");
  }
  if (version == 0) {
    KEEL_ASSIGN_OR_RETURN(int64_t objects,
                          query_int(db, "SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'"));
    if (objects > 0) {
      return Status::FailedPrecondition(db.path() + " is not a keel database (it holds tables of another program)");
    }
  } else if (app_id != kKeelApplicationId) {
    return Status::FailedPrecondition(db.path() + " is not a keel database (no keel application id)");
  }
  int newest = steps.empty() ? 0 : steps.back().version;
  if (version > newest) {
    return Status::FailedPrecondition(db.path() + " has schema version " + std::to_string(version) +
                                      ", newer than this keel understands (" + std::to_string(newest) +
                                      "); upgrade keel or use another database");
  }
  return version;
}

Status migrate(Db& db, std::span<const Migration> steps) {
  for (const Migration& step : steps) {
    Status status = db.write([&]() -> Status {
      KEEL_ASSIGN_OR_RETURN(int version, read_schema_version(db));
      if (version >= step.version) return Status::Ok();  // done already, maybe by another process
      if (version != step.version - 1) {
        return Status::Internal("migration to schema version " + std::to_string(step.version) + " found version " +
                                std::to_string(version));
      }
      KEEL_TRY(db.exec(std::string(step.sql)));
      if (step.fill != nullptr) KEEL_TRY(step.fill(db));
      return db.exec("PRAGMA user_version = " + std::to_string(step.version));
    });
    if (!status.ok()) {
      return Status(status.code(), "cannot migrate " + db.path() + " to schema version " +
                                       std::to_string(step.version) + ": " + status.message());
    }
  }
  return Status::Ok();
}

}  // namespace keel::detail
