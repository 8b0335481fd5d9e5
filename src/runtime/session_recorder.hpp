// Keeps one run in the Store as it happens: the session and run rows, every committed message,
// tool executions, approval decisions and trace spans.
//
// A step costs one transaction per commit: tool runs and spans wait in memory and are written
// with the next commit (or at finish(), with the run's end); so does a round's assistant message
// when its calls are read-only and bounded (commit_with_next). A run's start (session, run, root
// span) is one transaction too. Commits are written by a writer thread while the run
// goes on (the model call, read-only tools); the agent calls settle() before any act with side
// effects, so commit-before-act holds where it matters: a crash can lose only a step whose acts
// are safe to repeat. Every other write settles the queue first, so the store sees them in order.
// Commits that come within a few milliseconds of each other (a fast loop of read-only tools), or
// that queue up while the writer is busy, are written together in one transaction: a group
// commit, so the store keeps up with the loop. Such steps are safe to repeat, so a crash in that
// window loses nothing that matters.
//
// A failed write is remembered (first error wins) and reported by error(); the agent turns it
// into an explicit run failure rather than going on with a conversation it cannot keep.
//
// Thread-safety: not thread-safe except tool_ran() and span(), which the agent may call from its
// callback thread; all writes go through the internally synchronised Store.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <span>
#include <string>
#include <vector>

#include "keel/core/decision.hpp"
#include "keel/core/token_counter.hpp"
#include "keel/hooks.hpp"
#include "keel/store/store.hpp"

namespace keel::detail {

class SessionRecorder {
 public:
  // How long a committed step waits for the next ones to share its transaction.
  static constexpr std::chrono::milliseconds kGatherWindow{10};

  // `store` and `counter` must outlive the recorder.
  SessionRecorder(Store& store, const TokenCounter& counter, std::string workspace,
                  std::chrono::milliseconds gather_window = kGatherWindow);
  // Waits for the queued writes.
  ~SessionRecorder();
  SessionRecorder(const SessionRecorder&) = delete;
  SessionRecorder& operator=(const SessionRecorder&) = delete;

  // A new session titled after the task, and a run in it. With `parent_id` (a sub-agent's run)
  // the session belongs to that session and is hidden from normal lists.
  // `earlier` (a conversation the caller supplied) is saved first, outside the run.
  Status start_new_session(std::string_view task, std::string_view model, std::string_view parent_id = {},
                           std::span<const Message> earlier = {});
  // A new run in an existing session; returns its earlier messages (NotFound for a missing session).
  // `run_id`: the id the run gets (empty: a new one).
  Result<std::vector<Message>> start_in_session(std::string_view session_id, std::string_view task,
                                                std::string_view run_id = {});
  // Takes over an interrupted run; returns the session's messages and sets `run_start` to the index
  // of the run's first message. FailedPrecondition when the run already ended or is not the
  // session's latest.
  Result<std::vector<Message>> attach_to_run(std::string_view run_id, size_t& run_start, std::string& task);

  // Appends the messages a decision committed, with the tool runs and spans waiting since the
  // last commit, in one transaction, on the writer thread (see settle()).
  void commit(std::span<const Message> messages);
  // Keeps the messages a decision committed to go with the next commit, in its transaction: a
  // round whose calls are all read-only and bounded (safe to repeat, done in microseconds) is one
  // transaction instead of two. settle() writes what is kept.
  void commit_with_next(std::span<const Message> messages);
  // Waits until every queued write, and any kept message, is in the store (error() then has every
  // failure).
  void settle();
  void tool_ran(const ToolCall& call, const ToolResult& result, int64_t started_us, int64_t ended_us);
  void approval_decided(const ApprovalRequest& request, const ApprovalDecision& decision);
  // A span of this run's trace (the trace id is the run id), saved with the next commit; returns
  // its span id.
  std::string span(std::string_view kind, std::string_view name, int64_t start_us, int64_t end_us,
                   std::string_view status, std::string attributes = {});
  void set_state(RunState state);
  // Receives every span of the run, the run's own span last, once finish() has written them: what
  // an OTLP exporter sends. Called on the thread that calls finish(); set before the run starts.
  void set_span_sink(std::function<void(std::vector<SpanRecord>)> sink) { span_sink_ = std::move(sink); }
  // Final state, counters and answer or error; closes the run's root span. A suspended run keeps
  // its resumable state.
  void finish(const RunOutcome& outcome);

  const std::string& session_id() const { return session_id_; }
  const std::string& run_id() const { return run_id_; }
  // The first write known to have failed (without waiting for queued ones: see settle()).
  Status error() const;

 private:
  // Tool runs and spans recorded since the last commit, waiting to be written with the next one.
  struct Pending {
    std::vector<ToolRunRecord> runs;
    std::vector<SpanRecord> spans;
  };
  Pending take_pending();
  // Appends `messages` to `batch` as this run's, each with its token count.
  void append_run_messages(std::vector<NewMessage>& batch, std::span<const Message> messages) const;
  // `messages` and `records` in one transaction (Store::write_together).
  Status write_step(std::span<const NewMessage> messages, const Pending& records);
  void note(const Status& s);
  // A commit waiting for the writer thread.
  struct QueuedStep {
    std::vector<NewMessage> messages;
    Pending records;
  };
  // Queues `step` for the writer thread (started at the first one).
  void enqueue(QueuedStep step);
  void writer_loop();
  // Takes the whole queue and writes it as one group (the caller holds `lock` on writer_mu_ and
  // checked that no group is being written).
  void write_queued(std::unique_lock<std::mutex>& lock);
  // Writes the steps the writer found queued, in order (see the .cpp).
  void write_group(std::deque<QueuedStep>& group);
  Status begin_run(std::string_view task, std::string_view run_id = {});
  // Records (or re-records, replacing it) the run's root span, from the start until now.
  Status record_root(std::string status, std::string attributes);

  Store& store_;
  const TokenCounter& counter_;
  std::string workspace_;
  std::string session_id_;
  std::string run_id_;
  std::string root_span_;
  std::function<void(std::vector<SpanRecord>)> span_sink_;
  std::vector<SpanRecord> sink_spans_;  // copies for span_sink_ (guarded by pending_mu_)
  SpanRecord last_root_;                // the run's span as last recorded
  int64_t run_started_us_ = 0;
  int span_counter_ = 0;
  mutable std::mutex writer_mu_;  // guards error_ and the writer's queue and flags
  Status error_;
  std::condition_variable work_cv_;  // a write queued, or stopping
  std::condition_variable idle_cv_;  // a group was written
  std::deque<QueuedStep> queue_;
  bool writing_ = false;
  bool stopping_ = false;
  std::chrono::milliseconds gather_window_;
  std::thread writer_;
  std::mutex pending_mu_;  // guards the two below (tool_ran and span may come from another thread)
  std::vector<ToolRunRecord> pending_runs_;
  std::vector<SpanRecord> pending_spans_;
  std::vector<NewMessage> kept_;  // commit_with_next()'s messages, for the next commit
};

}  // namespace keel::detail
