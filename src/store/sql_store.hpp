// store/sql_store.hpp — the Store over SQL connections, one implementation for both engines.
//
// Its methods are defined by concern: sessions and messages (session_store.cpp,
// message_store.cpp), runs and tool runs (run_store.cpp), approvals (approval_store.cpp),
// memory (memory_store.cpp), todos (todo_store.cpp), skill settings and proposals
// (skill_store.cpp), cache (cache_store.cpp), spans (trace_store.cpp), keel serve
// (server_store.cpp), the autopilot (observation_store.cpp); opening lives in sqlite_store.cpp and
// postgres_store.cpp. The SQL is written once for both engines; where they differ (full-text
// search, the schema version) a method asks db_->dialect().
//
// Thread-safety: every public method leases a connection for its whole duration (pool_), and
// db_ is that connection; the *_locked helpers expect a lease held.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "keel/store/sqlite_store.hpp"
#include "store/connection_pool.hpp"

namespace keel::detail {

// What the store needs besides its connections, the same for both engines.
struct SqlStoreSettings {
  std::vector<CacheScope> cache_scopes;
  std::function<int64_t()> now_ms;  // empty: the system clock
  std::chrono::milliseconds lease_wait{60000};
};

class SqlStore final : public Store {
 public:
  SqlStore(std::vector<std::unique_ptr<Db>> connections, SqlStoreSettings settings);

  Result<int> schema_version() override;
  StoreHealth health() override;
  Result<std::unique_ptr<StoreClaim>> claim_server(std::string_view workspace) override;

  Result<std::string> create_session(const SessionInfo& info) override;
  Result<SessionRecord> get_session(std::string_view id) override;
  Result<std::vector<SessionRecord>> list_sessions(const SessionFilter& filter) override;
  Status rename_session(std::string_view id, std::string_view title) override;
  Status delete_session(std::string_view id) override;
  Result<std::string> fork_session(std::string_view id, std::optional<int64_t> up_to_seq) override;

  Result<int64_t> append_message(std::string_view session_id, std::string_view run_id, const Message& message,
                                 int64_t tokens) override;
  Result<int64_t> append_messages(std::string_view session_id, std::span<const NewMessage> batch) override;
  Result<std::vector<StoredMessage>> load_messages(std::string_view session_id) override;

  Result<std::string> create_run(const RunInfo& info) override;
  Status update_run(std::string_view id, const RunUpdate& update) override;
  Result<RunRecord> get_run(std::string_view id) override;
  Result<std::vector<RunRecord>> list_runs(std::string_view session_id) override;
  Result<RunRecord> latest_run(std::string_view session_id) override;
  Result<std::vector<RunRecord>> find_interrupted_runs() override;
  Result<int64_t> record_tool_run(const ToolRunRecord& record) override;
  Result<std::vector<ToolRunRecord>> list_tool_runs(std::string_view run_id) override;

  Result<int64_t> record_approval(const ApprovalRecord& record) override;
  Result<std::vector<ApprovalRecord>> list_approvals(const ApprovalFilter& filter) override;
  Status add_approval_rule(const ApprovalRule& rule) override;
  Result<std::vector<ApprovalRule>> list_approval_rules(std::string_view workspace) override;
  Status remove_approval_rule(std::string_view workspace, std::string_view tool, std::string_view pattern) override;
  Result<std::vector<McpToolLock>> list_mcp_tool_locks(std::string_view workspace, std::string_view server) override;
  Status put_mcp_tool_lock(const McpToolLock& lock) override;

  Result<int64_t> memory_write(std::string_view workspace, std::string_view text, std::string_view tags) override;
  Result<std::vector<MemoryHit>> memory_search(std::string_view workspace, std::string_view query, int limit) override;
  Result<std::vector<MemoryNote>> memory_list(std::string_view workspace, int limit) override;
  Status memory_remove(int64_t id) override;

  Result<TodoItem> todo_add(std::string_view workspace, const NewTodo& todo) override;
  Result<std::vector<TodoItem>> todo_list(std::string_view workspace, const TodoQuery& query) override;
  Result<TodoItem> todo_complete(std::string_view workspace, int64_t id, int64_t completed_ms) override;

  Result<std::optional<std::string>> cache_get(std::string_view scope, std::string_view key) override;
  Status cache_put(std::string_view scope, std::string_view key, std::string_view value) override;
  Status cache_clear(std::string_view scope) override;

  Status set_skill_setting(const SkillSetting& setting) override;
  Result<std::vector<SkillSetting>> list_skill_settings(std::string_view workspace) override;
  Result<int64_t> add_skill_proposal(const SkillProposal& proposal) override;
  Result<SkillProposal> get_skill_proposal(int64_t id) override;
  Result<SkillProposal> find_skill_proposal(std::string_view workspace, std::string_view public_id) override;
  Result<std::vector<SkillProposal>> list_skill_proposals(std::string_view workspace,
                                                          std::optional<ProposalStatus> status) override;
  Status decide_skill_proposal(int64_t id, ProposalStatus status, std::string_view result) override;
  Status append_server_events(std::span<const ServerEvent> events) override;
  Result<std::vector<ServerEvent>> list_server_events(std::string_view session_id, int64_t after_seq,
                                                      size_t limit) override;
  Result<int64_t> last_server_event_seq(std::string_view session_id) override;
  Status append_numbered_server_events(std::span<ServerEvent> events,
                                       const std::function<void(ServerEvent&)>& render) override;
  Result<std::unique_ptr<StoreWatch>> watch_server_events(std::function<void(const std::string&)> changed) override;
  Status put_server_checkpoint(const ServerCheckpoint& checkpoint) override;
  Status delete_server_checkpoint(std::string_view run_id) override;
  Result<std::vector<ServerCheckpoint>> list_server_checkpoints() override;
  Result<std::string> accept_server_run(const RunInfo& run, const Message& task, const std::string& settings,
                                        const ServerLease& lease) override;
  Result<std::vector<ServerCheckpoint>> claim_server_runs(std::string_view workspace, const ServerLease& lease,
                                                          size_t limit) override;
  Result<std::vector<std::string>> renew_server_leases(const ServerLease& lease) override;
  Status release_server_runs(std::string_view workspace, std::string_view owner) override;
  Result<ServerQueueStats> server_queue(std::string_view workspace) override;
  Status send_server_control(const ServerControl& control) override;
  Result<std::vector<ServerControl>> take_server_controls(std::string_view run_id) override;
  Result<std::unique_ptr<StoreWatch>> watch_server_controls(std::function<void(const std::string&)> sent) override;

  Result<std::optional<int64_t>> add_observation(const Observation& observation) override;
  Result<Observation> get_observation(int64_t id) override;
  Result<std::vector<Observation>> list_observations(std::string_view workspace, const ObservationQuery& query) override;
  Result<std::vector<std::pair<ObservationState, int64_t>>> count_observations(std::string_view workspace) override;
  Status move_observation(int64_t id, ObservationState from, const ObservationMove& move) override;
  Status record_spend(const SpendRecord& spend) override;
  Result<SpendTotal> spend_since(std::string_view workspace, std::string_view scope, int64_t since_ms) override;
  Status put_daemon_status(std::string_view workspace, std::string_view name, std::string_view status) override;
  Result<std::optional<std::string>> get_daemon_status(std::string_view workspace, std::string_view name) override;

  Status record_span(const SpanRecord& span) override;
  Result<std::vector<SpanRecord>> list_spans(std::string_view trace_id) override;

  Status write_together(const std::function<Status()>& writes) override;

 private:
  // The store's clock (options_.now_ms or the system clock), in ms since the epoch.
  int64_t now_ms() const;
  // `t`, or now when it is 0.
  int64_t or_now(int64_t t) const { return t != 0 ? t : now_ms(); }
  // NotFound "no session '<id>'" unless it exists.
  Status require_session_locked(std::string_view id);
  // NotFound "no run '<id>'" unless it exists (an empty id passes).
  Status require_run_locked(std::string_view id);
  // Appends inside an open write transaction; returns the first seq.
  Result<int64_t> append_locked(std::string_view session_id, std::span<const NewMessage> batch);
  // Inserts a run row (the id checked, or a new one); returns its id. Within a write.
  Result<std::string> insert_run_locked(const RunInfo& info);
  Status put_checkpoint_locked(const ServerCheckpoint& checkpoint);
  // Notifies `topic` with this store's tag and `keys` (several notices when they are many).
  Status notify_keys_locked(std::string_view topic, const std::vector<std::string_view>& keys);
  // Watches `topic`, handing on each key another store sent ("" after a gap in watching).
  Result<std::unique_ptr<StoreWatch>> watch_keys(std::string_view topic,
                                                 std::function<void(const std::string&)> on_key);
  Result<const CacheScope*> find_scope(std::string_view name) const;
  Result<std::vector<RunRecord>> query_runs_locked(std::string_view sql, std::string_view arg);

  ConnectionPool pool_;
  CurrentConnection db_{&pool_};  // the connection this thread leased
  SqlStoreSettings settings_;
  std::string notice_tag_;  // names this store in its event notices (random)
};

// InvalidArgument for a scope without a name, named twice, or with a negative limit.
Status check_cache_scopes(const std::vector<CacheScope>& scopes);

// The columns of a server checkpoint as read_checkpoints() expects them ("SELECT ...").
extern const std::string_view kCheckpointColumns;
// Every row `stmt` (selecting kCheckpointColumns) returns, as checkpoints.
Result<std::vector<ServerCheckpoint>> read_checkpoints(Stmt& stmt);

// A new id: `prefix` followed by 16 random lowercase hex digits ("s_0f3a...").
std::string random_id(std::string_view prefix);

}  // namespace keel::detail
