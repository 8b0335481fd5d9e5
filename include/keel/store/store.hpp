// keel/store/store.hpp — where keel keeps what outlives a process: sessions and their messages,
// runs and tool executions, approvals, memory notes, todos, a TTL cache and trace spans.
//
// Hosts and tests depend on this interface; open_sqlite_store() (keel/store/sqlite_store.hpp)
// is the implementation. Every write is one transaction: when a call fails, nothing it wrote
// remains. Missing ids are NotFound ("no session 's_0123456789abcdef'"); a full database is
// ResourceExhausted; a read-only one is PermissionDenied; another process holding the database
// longer than the busy timeout is Unavailable.
//
//   KEEL_ASSIGN_OR_RETURN(auto store, keel::open_sqlite_store({}));
//   keel::SessionInfo info;
//   info.title = "fix tests";
//   KEEL_ASSIGN_OR_RETURN(std::string sid, store->create_session(info));
//   KEEL_TRY(store->append_message(sid, "", keel::Message::user("hi"), 0));
//
// Thread-safety: implementations are internally synchronised; every method may be called from
// any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "keel/result.hpp"
#include "keel/store/records.hpp"

namespace keel {

// Something a process holds while it lives (Store::claim_server); released on destruction, and by
// the operating system or the database server when the process dies.
class StoreClaim {
 public:
  virtual ~StoreClaim() = default;
  // True when no other process can serve the same workspace from this database meanwhile.
  virtual bool exclusive() const { return true; }
};

// A watch on what other processes write (Store::watch_server_events); it stops on destruction.
class StoreWatch {
 public:
  virtual ~StoreWatch() = default;
};

class Store {
 public:
  virtual ~Store() = default;

  // The schema version of the open database (SQLite: PRAGMA user_version; PostgreSQL: keel_schema).
  virtual Result<int> schema_version() = 0;
  // Which database this is and whether it answers now (one round trip): for /api/health and
  // `keel doctor`. Never fails: an unreachable database is reported in the result.
  virtual StoreHealth health() = 0;
  // Claims serving `workspace` from this database for as long as the result lives. SQLite serves a
  // workspace from one process (a second keel serve is refused with FailedPrecondition naming the
  // database), and the claim is exclusive: that process may take up every run left behind at once.
  // PostgreSQL lets several instances serve it together: the claim is shared, and runs move
  // between instances only through the run queue's leases.
  virtual Result<std::unique_ptr<StoreClaim>> claim_server(std::string_view workspace) = 0;

  // ---- sessions
  // Creates a session and returns its new id. NotFound when parent_id names no session.
  virtual Result<std::string> create_session(const SessionInfo& info) = 0;
  virtual Result<SessionRecord> get_session(std::string_view id) = 0;
  // Most recently updated first, with message counts.
  virtual Result<std::vector<SessionRecord>> list_sessions(const SessionFilter& filter) = 0;
  virtual Status rename_session(std::string_view id, std::string_view title) = 0;
  // Deletes the session with its messages, runs, tool runs and spans. Sessions forked from it
  // keep their messages and lose their parent.
  virtual Status delete_session(std::string_view id) = 0;
  // A new session whose parent is `id`, holding copies of its messages with seq <= up_to_seq
  // (all when unset). InvalidArgument for a negative up_to_seq.
  virtual Result<std::string> fork_session(std::string_view id, std::optional<int64_t> up_to_seq) = 0;

  // ---- messages
  // Appends one message and returns its seq. `run_id` empty: none; otherwise the run must exist.
  virtual Result<int64_t> append_message(std::string_view session_id, std::string_view run_id, const Message& message,
                                         int64_t tokens) = 0;
  // Appends a batch atomically and returns the seq of its first message (the rest follow it
  // contiguously); an empty batch returns the next seq and writes nothing.
  virtual Result<int64_t> append_messages(std::string_view session_id, std::span<const NewMessage> batch) = 0;
  // Every message of the session in seq order.
  virtual Result<std::vector<StoredMessage>> load_messages(std::string_view session_id) = 0;

  // ---- runs
  virtual Result<std::string> create_run(const RunInfo& info) = 0;
  virtual Status update_run(std::string_view id, const RunUpdate& update) = 0;
  virtual Result<RunRecord> get_run(std::string_view id) = 0;
  // Oldest first.
  virtual Result<std::vector<RunRecord>> list_runs(std::string_view session_id) = 0;
  // The most recently started run; NotFound when the session has none.
  virtual Result<RunRecord> latest_run(std::string_view session_id) = 0;
  // Runs left running or waiting for approval (by a crash or kill), oldest first.
  virtual Result<std::vector<RunRecord>> find_interrupted_runs() = 0;
  // Logs one tool execution and returns its id.
  virtual Result<int64_t> record_tool_run(const ToolRunRecord& record) = 0;
  // In the order they were recorded.
  virtual Result<std::vector<ToolRunRecord>> list_tool_runs(std::string_view run_id) = 0;

  // ---- approvals
  virtual Result<int64_t> record_approval(const ApprovalRecord& record) = 0;
  virtual Result<std::vector<ApprovalRecord>> list_approvals(const ApprovalFilter& filter) = 0;
  // Inserts the rule or replaces the verdict of the rule with the same (workspace, tool,
  // pattern). InvalidArgument unless the verdict is kAllow or kDeny.
  virtual Status add_approval_rule(const ApprovalRule& rule) = 0;
  // Rules of one workspace, by tool then pattern.
  virtual Result<std::vector<ApprovalRule>> list_approval_rules(std::string_view workspace) = 0;
  virtual Status remove_approval_rule(std::string_view workspace, std::string_view tool, std::string_view pattern) = 0;

  // ---- MCP tool locks (records.hpp)
  // The accepted definitions of `server`'s tools in `workspace`, by tool.
  virtual Result<std::vector<McpToolLock>> list_mcp_tool_locks(std::string_view workspace, std::string_view server) = 0;
  // Inserts the lock or replaces the one of the same (workspace, server, tool). InvalidArgument
  // for an empty server, tool or digest.
  virtual Status put_mcp_tool_lock(const McpToolLock& lock) = 0;

  // ---- memory
  virtual Result<int64_t> memory_write(std::string_view workspace, std::string_view text, std::string_view tags) = 0;
  // Notes of `workspace` matching any word of `query`, best first. The query is plain text
  // (from a user or a model): search operators in it are treated as words, never as errors.
  virtual Result<std::vector<MemoryHit>> memory_search(std::string_view workspace, std::string_view query,
                                                       int limit) = 0;
  // Most recently updated first; limit <= 0: all.
  virtual Result<std::vector<MemoryNote>> memory_list(std::string_view workspace, int limit) = 0;
  virtual Status memory_remove(int64_t id) = 0;

  // ---- todos (per workspace, like memory notes)
  // Adds an open todo and returns it with its new id. InvalidArgument for empty text or a
  // priority out of range.
  virtual Result<TodoItem> todo_add(std::string_view workspace, const NewTodo& todo) = 0;
  // The workspace's todos, filtered and ordered as TodoQuery says.
  virtual Result<std::vector<TodoItem>> todo_list(std::string_view workspace, const TodoQuery& query) = 0;
  // Marks todo `id` of `workspace` done at `completed_ms` (0: now) and returns it. NotFound when
  // the workspace has no such todo (the message names its open ids); FailedPrecondition when it
  // is already done.
  virtual Result<TodoItem> todo_complete(std::string_view workspace, int64_t id, int64_t completed_ms) = 0;

  // ---- cache (scopes are configured when the store is opened; an unknown one is InvalidArgument)
  // The value, or nullopt on a miss. An expired entry is a miss and is deleted.
  virtual Result<std::optional<std::string>> cache_get(std::string_view scope, std::string_view key) = 0;
  // Stores the value with the scope's TTL, then evicts the scope's oldest entries beyond its
  // caps. ResourceExhausted when the value alone exceeds the scope's max_bytes.
  virtual Status cache_put(std::string_view scope, std::string_view key, std::string_view value) = 0;
  virtual Status cache_clear(std::string_view scope) = 0;

  // ---- skills (per workspace)
  // Sets the given fields of a skill's setting (unset fields keep their stored value).
  // InvalidArgument for an empty skill name.
  virtual Status set_skill_setting(const SkillSetting& setting) = 0;
  // The workspace's settings, by skill name.
  virtual Result<std::vector<SkillSetting>> list_skill_settings(std::string_view workspace) = 0;
  // Queues a proposal (status is taken as given, normally kPending) and returns its id.
  // InvalidArgument when arguments or output are not JSON (empty arguments: {}).
  virtual Result<int64_t> add_skill_proposal(const SkillProposal& proposal) = 0;
  // NotFound "no skill proposal N".
  virtual Result<SkillProposal> get_skill_proposal(int64_t id) = 0;
  // The proposal of `workspace` whose public_id is `public_id`. NotFound (the same message) for an
  // unknown id and for another workspace's proposal, so a caller cannot learn that it exists.
  virtual Result<SkillProposal> find_skill_proposal(std::string_view workspace, std::string_view public_id) = 0;
  // The workspace's proposals, newest first; `status` filters when set.
  virtual Result<std::vector<SkillProposal>> list_skill_proposals(std::string_view workspace,
                                                                  std::optional<ProposalStatus> status) = 0;
  // Records a decision: from kPending to kApproved or kRejected, or from kApproved to kExecuted or
  // kFailed, with `result` and decided_ms = now. NotFound for an unknown id; FailedPrecondition
  // when the proposal is not in a state that allows the move (e.g. already rejected).
  virtual Status decide_skill_proposal(int64_t id, ProposalStatus status, std::string_view result) = 0;

  // ---- keel serve
  // Appends events in one transaction. Events of a session that no longer exists are dropped (a
  // session deleted while its events were on their way); a seq already stored is an error.
  virtual Status append_server_events(std::span<const ServerEvent> events) = 0;
  // The session's events with seq > after_seq, in order, at most `limit`.
  virtual Result<std::vector<ServerEvent>> list_server_events(std::string_view session_id, int64_t after_seq,
                                                              size_t limit) = 0;
  // The session's highest stored seq; 0 when it has none.
  virtual Result<int64_t> last_server_event_seq(std::string_view session_id) = 0;
  // Appends events in one transaction, numbered by the database: each gets its session's next seq
  // (what ServerEvent::seq held is replaced), then `render` fills in its data knowing that seq.
  // Instances publishing to one session thus never collide, and a session's events commit in seq
  // order. An event of a session that no longer exists is not written (its seq is left 0).
  // Processes watching (watch_server_events) are told which sessions have new events.
  virtual Status append_numbered_server_events(std::span<ServerEvent> events,
                                               const std::function<void(ServerEvent&)>& render) = 0;
  // Calls `changed(session_id)`, from a thread of its own, when another process has appended
  // events of a session; `changed("")` when some may have been missed (the watch's connection was
  // lost and remade). Until the result is destroyed. SQLite (a database one process serves): there
  // is nothing to watch and the result is inert.
  virtual Result<std::unique_ptr<StoreWatch>> watch_server_events(std::function<void(const std::string&)> changed) = 0;
  // Creates or replaces the checkpoint of checkpoint.run_id. NotFound when the run does not exist.
  virtual Status put_server_checkpoint(const ServerCheckpoint& checkpoint) = 0;
  // Removes it; Ok when there was none.
  virtual Status delete_server_checkpoint(std::string_view run_id) = 0;
  // Every checkpoint, oldest first.
  virtual Result<std::vector<ServerCheckpoint>> list_server_checkpoints() = 0;
  // A run keel serve accepted, in one transaction: the run row (RunInfo::id, or a new id), its task
  // as the run's first message, and a checkpoint with `settings`, held by `lease` (an empty owner:
  // held by no one, for any instance to take). Returns the run id. NotFound for a missing
  // session; nothing is written on any error.
  virtual Result<std::string> accept_server_run(const RunInfo& run, const Message& task, const std::string& settings,
                                                const ServerLease& lease) = 0;

  // ---- keel serve's run queue: the checkpoints of one workspace, each held by at most one
  // instance under a lease (records.hpp ServerLease). Several instances on one PostgreSQL
  // database take runs from it without taking the same one twice.
  // Takes up to `limit` runs of `workspace` that no live lease holds (let go, or their holder's
  // lease ran out), oldest first, and holds them for lease.owner. Each comes with the owner it had
  // before (ServerCheckpoint::owner). Runs another instance is claiming at the same moment are
  // skipped, not waited for.
  virtual Result<std::vector<ServerCheckpoint>> claim_server_runs(std::string_view workspace, const ServerLease& lease,
                                                                  size_t limit) = 0;
  // Extends the lease on every run lease.owner holds; returns their ids (a run missing from them
  // was taken over: its holder must stop it without writing).
  virtual Result<std::vector<std::string>> renew_server_leases(const ServerLease& lease) = 0;
  // Lets go of the runs of `workspace` held by `owner` (every run of the workspace when `owner` is
  // empty) so that any instance may take them up at once.
  virtual Status release_server_runs(std::string_view workspace, std::string_view owner) = 0;
  virtual Result<ServerQueueStats> server_queue(std::string_view workspace) = 0;
  // Leaves `control` for the instance holding control.run_id and tells the watchers
  // (watch_server_controls). NotFound for no such run.
  virtual Status send_server_control(const ServerControl& control) = 0;
  // Removes and returns the controls left for `run_id`, oldest first.
  virtual Result<std::vector<ServerControl>> take_server_controls(std::string_view run_id) = 0;
  // As watch_server_events, for controls: `sent(run_id)` when another process left one.
  virtual Result<std::unique_ptr<StoreWatch>> watch_server_controls(std::function<void(const std::string&)> sent) = 0;

  // ---- autopilot (records.hpp)
  // Stores a new observation and returns its id; nullopt (nothing written) when (workspace,
  // source, fingerprint) is already stored, whatever its state. InvalidArgument for an empty
  // source or fingerprint or a payload that is not a JSON object.
  virtual Result<std::optional<int64_t>> add_observation(const Observation& observation) = 0;
  // NotFound "no observation N".
  virtual Result<Observation> get_observation(int64_t id) = 0;
  virtual Result<std::vector<Observation>> list_observations(std::string_view workspace,
                                                             const ObservationQuery& query) = 0;
  // How many observations of the workspace are in each state (states with none are absent).
  virtual Result<std::vector<std::pair<ObservationState, int64_t>>> count_observations(std::string_view workspace) = 0;
  // Moves observation `id` from state `from` as `move` says, atomically: FailedPrecondition when
  // it is no longer in `from` (another worker took or decided it), NotFound for an unknown id.
  virtual Status move_observation(int64_t id, ObservationState from, const ObservationMove& move) = 0;
  // Records model usage; spend_since() sums it.
  virtual Status record_spend(const SpendRecord& spend) = 0;
  // The workspace's spend in `scope` at or after `since_ms`.
  virtual Result<SpendTotal> spend_since(std::string_view workspace, std::string_view scope, int64_t since_ms) = 0;
  // A daemon's latest status document (JSON object text) per (workspace, name), replaced on each put.
  virtual Status put_daemon_status(std::string_view workspace, std::string_view name, std::string_view status) = 0;
  // nullopt when none was put.
  virtual Result<std::optional<std::string>> get_daemon_status(std::string_view workspace, std::string_view name) = 0;

  // ---- tracing
  // InvalidArgument when attributes are not a JSON object.
  virtual Status record_span(const SpanRecord& span) = 0;
  // By start time.
  virtual Result<std::vector<SpanRecord>> list_spans(std::string_view trace_id) = 0;

  // ---- several writes at once
  // Runs `writes` (calls of this store's methods, on this thread) as ONE transaction: all of them
  // are kept, or none when `writes` returns an error (it should return the first failure of the
  // calls in it), which is returned. Other threads' calls wait until it ends.
  virtual Status write_together(const std::function<Status()>& writes) = 0;
};

}  // namespace keel
