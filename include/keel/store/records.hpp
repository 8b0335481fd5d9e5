// keel/store/records.hpp — the rows a Store keeps: sessions, messages, runs, tool runs,
// approvals, approval rules, memory notes, todos and trace spans.
//
// Conventions: ids are text ("s_" + 32 hex digits for sessions, "r_" + 32 for runs: 128 random
// bits; older databases hold 16-digit ones); times are
// integer milliseconds since the Unix epoch (spans: microseconds); on writes a time of 0 means
// "now" (the store's clock). An empty optional id (parent, run) is stored as NULL.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "keel/core/event.hpp"
#include "keel/message.hpp"
#include "keel/model_io.hpp"

namespace keel {

// ---------------------------------------------------------------- sessions

// What create_session() needs.
struct SessionInfo {
  std::string title;       // shown in session lists; may be empty
  std::string workspace;   // the folder the session works in; list filter key; may be empty
  std::string model;       // model spec the session was started with, e.g. "openai:gpt-4o"
  std::string parent_id;   // the session this one was forked or spawned from; empty: none
  bool hidden = false;     // sub-agent sessions: left out of list_sessions() unless asked for
  int64_t created_ms = 0;  // 0: now
};

struct SessionRecord {
  std::string id;
  std::string title;
  std::string workspace;
  std::string model;
  std::string parent_id;  // empty: none (or the parent was deleted)
  bool hidden = false;
  int64_t created_ms = 0;
  int64_t updated_ms = 0;  // last rename or message append
  int64_t message_count = 0;
};

struct SessionFilter {
  std::optional<std::string> workspace;  // set: only sessions of this workspace
  bool include_hidden = false;           // true: sub-agent sessions too
  int limit = 50;                        // most sessions returned; <= 0: all
};

// ---------------------------------------------------------------- messages

// One message as stored: its place in the session and the run that produced it.
struct StoredMessage {
  int64_t seq = 0;     // 1-based position in the session, contiguous
  std::string run_id;  // empty: not produced by a run (or the run was deleted)
  Message message;
  int64_t tokens = 0;  // token count the host measured; 0: unknown
  int64_t created_ms = 0;
};

// One element of an append_messages() batch.
struct NewMessage {
  std::string run_id;  // empty: none
  Message message;
  int64_t tokens = 0;
  int64_t created_ms = 0;  // 0: now
};

// ---------------------------------------------------------------- runs

enum class RunState { kRunning, kWaitingApproval, kFinished, kFailed, kAborted };

// "running", "waiting_approval", "finished", "failed", "aborted".
std::string_view run_state_name(RunState state);
// finished, failed and aborted are terminal; running and waiting_approval are not.
bool run_state_is_terminal(RunState state);

// What create_run() needs. A new run is kRunning.
struct RunInfo {
  std::string session_id;
  std::string task;        // the user's request that started the run
  int64_t started_ms = 0;  // 0: now
  std::string id = {};     // empty: a new random id; else "r_" and 32 hex digits, not yet used
};

struct RunRecord {
  std::string id;
  std::string session_id;
  std::string task;
  RunState state = RunState::kRunning;
  int rounds = 0;      // model calls made
  Usage usage;         // tokens summed over the run
  std::string answer;  // final answer; empty until finished
  std::string error;   // why it failed or was aborted
  int64_t started_ms = 0;
  std::optional<int64_t> ended_ms;        // unset while not terminal
  std::optional<std::string> checkpoint;  // opaque JSON a host stored for resume
};

// The fields update_run() changes; unset fields keep their stored value.
struct RunUpdate {
  std::optional<RunState> state;
  std::optional<int> rounds;
  std::optional<Usage> usage;  // replaces the stored totals
  std::optional<std::string> answer;
  std::optional<std::string> error;
  std::optional<std::string> checkpoint;  // an empty string clears it (NULL)
  std::optional<int64_t> ended_ms;        // unset: now, when `state` is terminal and none was recorded
};

// One tool execution, as the executor saw it.
struct ToolRunRecord {
  int64_t id = 0;  // assigned by record_tool_run(); ignored on write
  std::string run_id;
  std::string call_id;        // ToolCall::id
  std::string tool;           // the tool that ran
  std::string alias;          // the name the model used, when it differs from `tool`
  std::string raw_args;       // arguments as the model wrote them
  std::string resolved_args;  // arguments after repair, defaults and path resolution (JSON)
  int64_t started_ms = 0;
  int64_t ended_ms = 0;
  int64_t duration_ms = 0;
  ToolStatus status = ToolStatus::kOk;
  std::string result;  // output when ok
  std::string error;   // message otherwise
};

// ---------------------------------------------------------------- approvals

// One approval decision, kept as an audit log: it keeps the run and session ids it was made
// under even after they are deleted.
struct ApprovalRecord {
  int64_t id = 0;          // assigned by record_approval(); ignored on write
  std::string run_id;      // empty: none
  std::string session_id;  // empty: none
  std::string workspace;
  std::string tool;
  std::string arguments;  // canonical arguments JSON the decision was about
  ApprovalVerdict verdict = ApprovalVerdict::kDeny;
  std::string reason;
  int64_t decided_ms = 0;  // 0: now
};

// Which approvals list_approvals() returns; set fields must all match.
struct ApprovalFilter {
  std::string run_id;      // empty: any
  std::string session_id;  // empty: any
  int limit = 100;         // most records returned, newest first; <= 0: all
};

// A standing decision for a tool in a workspace. Unique by (workspace, tool, pattern).
struct ApprovalRule {
  std::string workspace;
  std::string tool;
  std::string pattern;  // regex over the canonical arguments; empty: any call (not checked here)
  ApprovalVerdict verdict = ApprovalVerdict::kDeny;  // kAllow or kDeny
  int64_t created_ms = 0;                            // 0: now
};

// The definition of one MCP server's tool as a user accepted it in a workspace (the tool lock):
// a changed definition is held back until accepted again. Unique by (workspace, server, tool).
struct McpToolLock {
  std::string workspace;
  std::string server;
  std::string tool;
  std::string digest;      // sha256 of `definition`, hex
  std::string definition;  // the canonical JSON of what the server sent (name, description, schemas, ...)
  int64_t accepted_ms = 0;  // 0: now
};

// ---------------------------------------------------------------- memory

struct MemoryNote {
  int64_t id = 0;
  std::string workspace;  // empty: shared by every workspace
  std::string text;
  std::string tags;  // free-form, searched like the text
  int64_t created_ms = 0;
  int64_t updated_ms = 0;
};

struct MemoryHit {
  MemoryNote note;
  double score = 0;  // bm25 relevance, higher is better
};

// ---------------------------------------------------------------- todos

enum class TodoPriority { kNone = 0, kLow = 1, kMedium = 2, kHigh = 3 };

// "none", "low", "medium", "high".
std::string_view todo_priority_name(TodoPriority priority);

// What todo_add() needs.
struct NewTodo {
  std::string text;  // what to do; not empty
  TodoPriority priority = TodoPriority::kNone;
  std::string notes;       // free-form details; may be empty
  int64_t created_ms = 0;  // 0: now
};

struct TodoItem {
  int64_t id = 0;         // unique across workspaces, assigned by todo_add()
  std::string workspace;  // the folder it belongs to; empty: not tied to one
  std::string text;
  TodoPriority priority = TodoPriority::kNone;
  std::string notes;
  int64_t created_ms = 0;
  std::optional<int64_t> completed_ms;  // set once done
  bool done() const { return completed_ms.has_value(); }
};

enum class TodoStatusFilter { kOpen, kDone, kAll };

// Which todos todo_list() returns, and in what order: open ones first, highest priority first,
// then oldest first; done ones after them, most recently completed first.
struct TodoQuery {
  TodoStatusFilter status = TodoStatusFilter::kOpen;
  int limit = 0;  // most items returned; <= 0: all
};

// ---------------------------------------------------------------- skills

// A workspace's override of one skill: whether it is enabled, and whether an auto-run-eligible
// skill's action may run without asking. Unset fields keep the skill's default.
struct SkillSetting {
  std::string workspace;
  std::string skill;               // a knowledge skill's name or an executable skill's id
  std::optional<bool> enabled;     // unset: enabled
  std::optional<bool> auto_run;    // unset: off (auto-run is always opt-in)
  int64_t updated_ms = 0;          // set by the store
};

enum class ProposalStatus { kPending, kApproved, kRejected, kExecuted, kFailed };

// "pending", "approved", "rejected", "executed", "failed".
std::string_view proposal_status_name(ProposalStatus status);

// An executable skill's action waiting for (or past) a person's decision.
struct SkillProposal {
  int64_t id = 0;           // assigned by add_skill_proposal(); local to this database (the CLI's handle)
  // Assigned by add_skill_proposal(): "sp_" and 128 random bits in hex. What keel serve's clients
  // name a proposal by, with its workspace (find_skill_proposal()); sequential ids are never accepted there.
  std::string public_id;
  std::string workspace;
  std::string skill;        // the skill's id
  std::string run_id;       // the skill graph run that produced it (free-form; not a runs row)
  std::string tool;         // the tool the action calls; empty: the output itself is the proposal
  std::string arguments;    // JSON object text: the action's arguments
  std::string output;       // JSON text: the skill's validated output
  std::string summary;      // one line a person reads in a list
  ProposalStatus status = ProposalStatus::kPending;
  std::string result;       // what the action returned, or why it failed / was rejected
  int64_t created_ms = 0;   // 0: now
  std::optional<int64_t> decided_ms;
};

// ---------------------------------------------------------------- keel serve

// One event of a session's runs as keel serve streamed it, kept so a client can resume its stream
// (Last-Event-ID) even after a restart.
struct ServerEvent {
  std::string session_id;
  int64_t seq = 0;         // 1, 2, ... within the session; the stream's event id
  std::string run_id;      // empty: not tied to a run
  std::string type;        // the event's type (docs/events.md, docs/server.md)
  std::string data;        // the event's JSON object text
  int64_t created_ms = 0;  // 0: now
};

// A run keel serve has to take up again after a restart: what it was started with, and what it
// waits for.
struct ServerCheckpoint {
  std::string run_id;
  std::string session_id;
  std::string settings = "{}";  // JSON object: the run's profile and options
  std::string waiting;          // "" (running), "approval", "answer", "shutdown"
  int64_t updated_ms = 0;       // set by the store
  // The run queue's part, set by the store (accept_server_run, claim_server_runs): the workspace
  // of the run's session, the keel serve instance that holds the run ("" when none does) and until
  // when its lease holds. A run returned by claim_server_runs carries the owner it had before:
  // "" when that instance let it go (it stopped), the instance's id when its lease ran out.
  std::string workspace;
  std::string owner;
  int64_t lease_until_ms = 0;
};

// A keel serve instance's hold on the runs it executes: its id and how long a lease lasts from
// each renewal. An instance that stops renewing (it died) loses its runs to the others.
struct ServerLease {
  std::string owner;
  int64_t duration_ms = 15000;
};

// Something a client asked of a run that another keel serve instance holds: "abort", "steer",
// "decide" or "answer", with its details as a JSON object.
struct ServerControl {
  int64_t id = 0;
  std::string run_id;
  std::string kind;
  std::string body = "{}";
};

// The run queue of one workspace as /api/health reports it.
struct ServerQueueStats {
  int64_t held = 0;       // runs an instance holds under a live lease (executing, queued or parked there)
  int64_t unclaimed = 0;  // runs no live instance holds: waiting to be taken up
  int64_t instances = 0;  // distinct instances holding a live lease
};

// ---------------------------------------------------------------- autopilot

// Where an observation is in its life (seed 002): pending → processing → done, or dismissed (its
// conditions no longer hold), or stalled (it failed too many times in a row).
enum class ObservationState { kPending = 0, kProcessing = 1, kDone = 2, kDismissed = 3, kStalled = 4 };

// "pending", "processing", "done", "dismissed", "stalled".
std::string_view observation_state_name(ObservationState state);
// The state named as observation_state_name() spells it; nullopt otherwise.
std::optional<ObservationState> parse_observation_state(std::string_view name);

// Something an autopilot source noticed: a new file, a schedule firing, a feed item, a commit.
// Its fingerprint makes it unique within (workspace, source): noticing it again stores nothing.
struct Observation {
  int64_t id = 0;             // assigned by add_observation()
  std::string workspace;
  std::string source;         // the configured source's name
  std::string fingerprint;    // what makes it the same observation again (a content hash, an item id)
  std::string kind;           // "file", "schedule", "http", "feed", "git", "mcp"
  std::string subject;        // one line a person reads: a path, a URL, a commit subject
  std::string payload;        // JSON object text: what the trigger is given as input
  ObservationState state = ObservationState::kPending;
  int failures = 0;           // consecutive failed attempts
  std::string last_error;     // the latest failure, one line
  std::string result;         // done: what came of it (run id, proposals); dismissed: why
  int64_t created_ms = 0;     // 0: now
  int64_t updated_ms = 0;     // set by the store on every write
  int64_t next_attempt_ms = 0;  // pending: not taken before this time (backoff after a failure)
};

// The fields a transition writes; the rest of the observation stays.
struct ObservationMove {
  ObservationState state = ObservationState::kPending;
  int failures = 0;
  std::string last_error = {};
  std::string result = {};
  int64_t next_attempt_ms = 0;
};

struct ObservationQuery {
  std::optional<ObservationState> state = std::nullopt;  // unset: every state
  std::string source = {};                                // empty: every source
  std::optional<int64_t> due_by_ms = std::nullopt;        // only those with next_attempt_ms <= this
  int limit = 100;                                        // <= 0: all
  bool oldest_first = false;                              // default newest first
};

// Model usage the autopilot (or any budgeted host) spent, kept so caps per hour hold across restarts.
struct SpendRecord {
  std::string workspace;
  std::string scope;      // e.g. "autopilot"
  int64_t at_ms = 0;      // 0: now
  int64_t tokens = 0;
  double cost = 0;        // in the price table's currency; 0 when no price is known
};

struct SpendTotal {
  int64_t tokens = 0;
  double cost = 0;
};

// ---------------------------------------------------------------- health

struct StoreHealth {
  std::string engine;    // "sqlite" or "postgres"
  std::string location;  // the file, or the URL without its password
  bool reachable = false;
  int schema_version = 0;
  std::string error;     // why it is not reachable
  int connections = 0;   // open connections (the pool's size)
};

// ---------------------------------------------------------------- tracing

struct SpanRecord {
  std::string trace_id;
  std::string span_id;         // unique within the trace; recording it again replaces it
  std::string parent_span_id;  // empty: a root span
  std::string session_id;      // empty: none; must exist otherwise
  std::string run_id;          // empty: none; must exist otherwise
  std::string kind;            // e.g. "run", "model", "tool"
  std::string name;
  int64_t start_us = 0;  // microseconds since the epoch
  int64_t duration_us = 0;
  std::string status;      // e.g. "ok", "error"
  std::string attributes;  // JSON object text; empty: {}
};

}  // namespace keel
