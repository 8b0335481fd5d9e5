#include "runtime/session_recorder.hpp"

#include <chrono>
#include <nlohmann/json.hpp>

#include "base/clock.hpp"
#include "core/guards/call_signature.hpp"
#include "core/parsing/json/json_text.hpp"
#include "runtime/genai_names.hpp"
#include "core/text/text_util.hpp"
#include "core/text/utf8_text.hpp"

namespace keel::detail {
namespace {

constexpr size_t kTitleChars = 80;

// The first line of the task, cut on a UTF-8 boundary: a session's default title.
std::string title_of(std::string_view task) {
  std::string_view t = trim(task);
  t = t.substr(0, t.find('\n'));
  if (t.size() <= kTitleChars) return std::string(t);
  return std::string(t.substr(0, utf8_char_start(t, kTitleChars))) + "…";
}

// A tool run's arguments as stored for reading: canonical JSON (keys sorted, no spaces) when they
// are JSON, else the text as the model wrote it.
std::string resolved_arguments(const std::string& arguments) {
  if (arguments.find_first_not_of(" \t\r\n") != std::string::npos) {
    Result<std::string> canonical = canonical_arguments(arguments);  // objects, the usual case
    if (canonical.ok()) return std::move(*canonical);
  }
  auto parsed = nlohmann::json::parse(arguments, nullptr, false);
  return parsed.is_discarded() ? arguments : parsed.dump();
}

RunUpdate state_update(RunState state) {
  RunUpdate u;
  u.state = state;
  return u;
}

}  // namespace

SessionRecorder::SessionRecorder(Store& store, const TokenCounter& counter, std::string workspace,
                                 std::chrono::milliseconds gather_window)
    : store_(store), counter_(counter), workspace_(std::move(workspace)), gather_window_(gather_window) {}

SessionRecorder::~SessionRecorder() {
  settle();
  {
    std::lock_guard lock(writer_mu_);
    stopping_ = true;
  }
  work_cv_.notify_one();
  if (writer_.joinable()) writer_.join();
}

void SessionRecorder::enqueue(QueuedStep step) {
  bool first = false;
  {
    std::lock_guard lock(writer_mu_);
    first = queue_.empty();
    queue_.push_back(std::move(step));
    if (!writer_.joinable()) writer_ = std::thread([this] { writer_loop(); });
  }
  // A step that joins a gathering group leaves the writer asleep until its window ends.
  if (first) work_cv_.notify_one();
}

void SessionRecorder::writer_loop() {
  std::unique_lock lock(writer_mu_);
  while (true) {
    work_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, nothing left
    // The steps of a fast loop gather for a moment and go in one transaction; a settle() in the
    // meantime writes them itself.
    work_cv_.wait_for(lock, gather_window_, [&] { return stopping_ || queue_.empty(); });
    if (!writing_) write_queued(lock);
  }
}

void SessionRecorder::write_queued(std::unique_lock<std::mutex>& lock) {
  if (queue_.empty()) return;
  std::deque<QueuedStep> group;
  group.swap(queue_);
  writing_ = true;
  lock.unlock();
  write_group(group);
  lock.lock();
  writing_ = false;
  idle_cv_.notify_all();
}

void SessionRecorder::write_group(std::deque<QueuedStep>& group) {
  // The steps share one transaction: the pages they touch (the ends of the same tables and
  // indexes) are written once, and there is one commit.
  Status saved = Status::Ok();
  if (group.size() > 1) {
    saved = store_.write_together([&]() -> Status {
      for (const QueuedStep& step : group) KEEL_TRY(write_step(step.messages, step.records));
      return Status::Ok();
    });
    if (saved.ok()) return;
  }
  // One step, or a group that failed: each step in a transaction of its own, so the steps before
  // a failing one are kept as they would have been without grouping.
  for (const QueuedStep& step : group) {
    saved = write_step(step.messages, step.records);
    if (!saved.ok()) break;
  }
  if (!saved.ok()) note(Status(saved.code(), "could not save the conversation: " + saved.message()));
}

void SessionRecorder::settle() {
  if (!kept_.empty()) commit({});
  std::unique_lock lock(writer_mu_);
  // What is queued is written on this thread, not handed to the writer: the caller is waiting
  // anyway, and needs no wake-up of another thread. A group the writer is writing is waited for
  // (groups commit in order).
  while (!queue_.empty() || writing_) {
    if (writing_) {
      idle_cv_.wait(lock, [&] { return !writing_; });
    } else {
      write_queued(lock);
    }
  }
}

Status SessionRecorder::error() const {
  std::lock_guard lock(writer_mu_);
  return error_;
}

void SessionRecorder::note(const Status& s) {
  if (s.ok()) return;
  std::lock_guard lock(writer_mu_);
  if (error_.ok()) error_ = s;
}

Status SessionRecorder::begin_run(std::string_view task, std::string_view run_id) {
  RunInfo info;
  info.id = std::string(run_id);
  info.session_id = session_id_;
  info.task = std::string(task);
  run_started_us_ = wall_now_us();
  root_span_ = "run";
  return store_.write_together([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(run_id_, store_.create_run(info));
    return record_root("running", "{}");
  });
}

Status SessionRecorder::record_root(std::string status, std::string attributes) {
  SpanRecord root;
  root.trace_id = run_id_;
  root.span_id = root_span_ + "-" + run_id_;
  root.session_id = session_id_;
  root.run_id = run_id_;
  root.kind = "run";
  root.name = agent_span_name();
  if (root_span_ == "resume") {  // a resumed run: the same agent span, marked
    nlohmann::json a = nlohmann::json::parse(attributes.empty() ? "{}" : attributes, nullptr, false);
    if (a.is_object()) {
      a["resumed"] = true;
      attributes = a.dump();
    }
  }
  root.start_us = run_started_us_;
  root.duration_us = std::max<int64_t>(0, wall_now_us() - run_started_us_);
  root.status = std::move(status);
  root.attributes = std::move(attributes);
  if (span_sink_) last_root_ = root;
  return store_.record_span(root);
}

Status SessionRecorder::start_new_session(std::string_view task, std::string_view model, std::string_view parent_id,
                                          std::span<const Message> earlier) {
  SessionInfo info;
  info.title = title_of(task);
  info.workspace = workspace_;
  info.model = std::string(model);
  info.parent_id = std::string(parent_id);
  info.hidden = !parent_id.empty();
  std::vector<NewMessage> batch;
  batch.reserve(earlier.size());
  for (const Message& m : earlier) batch.push_back({"", m, static_cast<int64_t>(counter_.count_message(m)), 0});
  // The session, the conversation given with it and the run: one transaction.
  return store_.write_together([&]() -> Status {
    KEEL_ASSIGN_OR_RETURN(session_id_, store_.create_session(info));
    if (!batch.empty()) KEEL_TRY(store_.append_messages(session_id_, batch).status());
    return begin_run(task);
  });
}

Result<std::vector<Message>> SessionRecorder::start_in_session(std::string_view session_id, std::string_view task,
                                                               std::string_view run_id) {
  KEEL_ASSIGN_OR_RETURN(SessionRecord session, store_.get_session(session_id));
  KEEL_ASSIGN_OR_RETURN(std::vector<StoredMessage> stored, store_.load_messages(session.id));
  session_id_ = session.id;
  KEEL_TRY(begin_run(task, run_id));
  std::vector<Message> out;
  out.reserve(stored.size());
  for (auto& m : stored) out.push_back(std::move(m.message));
  return out;
}

Result<std::vector<Message>> SessionRecorder::attach_to_run(std::string_view run_id, size_t& run_start,
                                                            std::string& task) {
  KEEL_ASSIGN_OR_RETURN(RunRecord run, store_.get_run(run_id));
  if (run_state_is_terminal(run.state)) {
    return Status::FailedPrecondition("run '" + run.id + "' already " + std::string(run_state_name(run.state)) +
                                      "; nothing to resume (continue the conversation with --session " +
                                      run.session_id + ")");
  }
  KEEL_ASSIGN_OR_RETURN(RunRecord latest, store_.latest_run(run.session_id));
  if (latest.id != run.id) {
    return Status::FailedPrecondition("run '" + run.id + "' is not the latest run of session '" + run.session_id +
                                      "' (that is '" + latest.id + "'); only the latest run can be resumed");
  }
  KEEL_ASSIGN_OR_RETURN(std::vector<StoredMessage> stored, store_.load_messages(run.session_id));
  session_id_ = run.session_id;
  run_id_ = run.id;
  task = run.task;
  run_started_us_ = wall_now_us();
  root_span_ = "resume";
  run_start = stored.size();
  std::vector<Message> out;
  out.reserve(stored.size());
  for (auto& m : stored) {
    if (m.run_id == run.id && run_start == stored.size()) run_start = out.size();
    out.push_back(std::move(m.message));
  }
  if (run_start == stored.size()) {
    return Status::FailedPrecondition("run '" + run.id + "' has no saved messages; start it again with keel run");
  }
  KEEL_TRY(store_.update_run(run.id, state_update(RunState::kRunning)));
  KEEL_TRY(record_root("running", "{}"));
  return out;
}

SessionRecorder::Pending SessionRecorder::take_pending() {
  Pending p;
  std::lock_guard lock(pending_mu_);
  p.runs.swap(pending_runs_);
  p.spans.swap(pending_spans_);
  return p;
}

Status SessionRecorder::write_step(std::span<const NewMessage> messages, const Pending& records) {
  return store_.write_together([&]() -> Status {
    if (!messages.empty()) KEEL_TRY(store_.append_messages(session_id_, messages).status());
    for (const ToolRunRecord& r : records.runs) KEEL_TRY(store_.record_tool_run(r).status());
    for (const SpanRecord& s : records.spans) KEEL_TRY(store_.record_span(s));
    return Status::Ok();
  });
}

void SessionRecorder::append_run_messages(std::vector<NewMessage>& batch, std::span<const Message> messages) const {
  batch.reserve(batch.size() + messages.size());
  for (const Message& m : messages) batch.push_back({run_id_, m, static_cast<int64_t>(counter_.count_message(m)), 0});
}

void SessionRecorder::commit_with_next(std::span<const Message> messages) { append_run_messages(kept_, messages); }

void SessionRecorder::commit(std::span<const Message> messages) {
  if ((messages.empty() && kept_.empty()) || !error().ok()) return;
  std::vector<NewMessage> batch = std::move(kept_);
  kept_.clear();
  append_run_messages(batch, messages);
  enqueue(QueuedStep{std::move(batch), take_pending()});
}

void SessionRecorder::tool_ran(const ToolCall& call, const ToolResult& result, int64_t started_us, int64_t ended_us) {
  ToolRunRecord r;
  r.run_id = run_id_;
  r.call_id = call.id;
  r.tool = result.name.empty() ? call.name : result.name;
  if (r.tool != call.name) r.alias = call.name;
  r.raw_args = call.arguments;
  r.resolved_args = resolved_arguments(call.arguments);
  r.started_ms = started_us / 1000;
  r.ended_ms = ended_us / 1000;
  r.duration_ms = result.duration_ms;
  r.status = result.status;
  (result.ok() ? r.result : r.error) = result.content;
  SortedJsonObject fields;
  append_json_string(fields.member("call_id"), call.id);
  append_json_int(fields.member("bytes"), static_cast<int64_t>(result.content.size()));
  if (capture_genai_content()) {
    append_json_string(fields.member("gen_ai.tool.call.arguments"), r.resolved_args);
    append_json_string(fields.member("gen_ai.tool.call.result"),
                       std::string_view(result.content).substr(0, kCapturedContentBytes));
  }
  std::string attrs;
  fields.append_to(attrs);
  const std::string tool = tool_span_name(r.tool);
  {
    std::lock_guard lock(pending_mu_);
    pending_runs_.push_back(std::move(r));
  }
  span("tool", tool, started_us, ended_us, tool_status_name(result.status), std::move(attrs));
}

void SessionRecorder::approval_decided(const ApprovalRequest& request, const ApprovalDecision& decision) {
  settle();
  ApprovalRecord r;
  r.run_id = run_id_;
  r.session_id = session_id_;
  r.workspace = workspace_;
  r.tool = request.call.name;
  r.arguments = request.call.arguments;
  r.verdict = decision.verdict;
  r.reason = decision.reason;
  note(store_.record_approval(r).status());
  if (decision.verdict == ApprovalVerdict::kAllowAlways) {
    ApprovalRule rule;
    rule.workspace = workspace_;
    rule.tool = request.call.name;
    rule.verdict = ApprovalVerdict::kAllow;
    note(store_.add_approval_rule(rule));
  }
}

std::string SessionRecorder::span(std::string_view kind, std::string_view name, int64_t start_us, int64_t end_us,
                                  std::string_view status, std::string attributes) {
  SpanRecord s;
  s.trace_id = run_id_;
  std::lock_guard lock(pending_mu_);
  s.span_id = std::string(kind) + "-" + std::to_string(++span_counter_) + "-" + std::to_string(start_us);
  s.parent_span_id = root_span_ + "-" + run_id_;
  s.session_id = session_id_;
  s.run_id = run_id_;
  s.kind = std::string(kind);
  s.name = std::string(name);
  s.start_us = start_us;
  s.duration_us = std::max<int64_t>(0, end_us - start_us);
  s.status = std::string(status);
  s.attributes = std::move(attributes);
  std::string id = s.span_id;
  if (span_sink_) sink_spans_.push_back(s);
  pending_spans_.push_back(std::move(s));
  return id;
}

void SessionRecorder::set_state(RunState state) {
  settle();
  note(store_.update_run(run_id_, state_update(state)));
}

void SessionRecorder::finish(const RunOutcome& outcome) {
  if (run_id_.empty()) return;
  settle();
  Pending records = take_pending();
  if (!error().ok()) records = {};  // the conversation they belong to is not all saved
  std::string status = "suspended";
  std::string attributes = nlohmann::json{{"model_calls", outcome.model_calls}}.dump();
  RunUpdate u;
  const Status unsaved = error();
  if (!outcome.suspended) {  // a suspended run stays resumable: its state is what it was waiting in
    u.state = outcome.ok ? RunState::kFinished
                         : (outcome.failure == FailureKind::kAborted ? RunState::kAborted : RunState::kFailed);
    u.rounds = outcome.model_calls;
    u.usage = outcome.usage;
    if (outcome.ok) u.answer = outcome.answer;
    else u.error = outcome.error;
    if (outcome.ok && !unsaved.ok()) {
      // An answer whose conversation could not be saved is not a finished run: what is stored
      // lacks it (the run is reported failed with this error).
      u.state = RunState::kFailed;
      u.answer.reset();
      u.error = unsaved.message();
    }
    status = outcome.ok ? "ok" : std::string(failure_kind_name(outcome.failure));
    attributes = nlohmann::json{{"rounds", outcome.rounds},
                                {"model_calls", outcome.model_calls},
                                {"tool_calls", outcome.tool_calls},
                                {"prompt_tokens", outcome.usage.prompt_tokens},
                                {"completion_tokens", outcome.usage.completion_tokens}}
                     .dump();
  }
  // The last records, the run's end and its root span in one transaction.
  Status together = store_.write_together([&]() -> Status {
    KEEL_TRY(write_step({}, records));
    if (!outcome.suspended) KEEL_TRY(store_.update_run(run_id_, u));
    return record_root(status, attributes);
  });
  if (!together.ok()) {
    note(together);
    if (!outcome.suspended) note(store_.update_run(run_id_, u));  // the run's end, at least
  }
  if (span_sink_ && !last_root_.span_id.empty()) {
    std::vector<SpanRecord> spans;
    {
      std::lock_guard lock(pending_mu_);
      spans.swap(sink_spans_);
    }
    spans.push_back(last_root_);
    span_sink_(std::move(spans));
  }
}

}  // namespace keel::detail
