// api/agui_stream.hpp — relays one keel run to an AG-UI client as the protocol's events.
//
//   auto relay = std::make_shared<AguiRelay>(responder, ids, client_state, headers);
//   agent.add_hooks(relay);
//   Result<RunOutcome> out = agent.run_after(earlier, task, stop);   // or continue_session
//   relay->started() ? (ok ? relay->finish(*out) : relay->fail(code, message)) : ...answer 4xx/5xx...
//
// The stream starts when the run does (its session is stored): 200 text/event-stream, then
// RUN_STARTED {threadId, runId} and a STATE_SNAPSHOT. A run that cannot start (a bad
// continuation, a store that fails) has sent nothing, so the caller still answers with an HTTP
// error. Then, as the run goes:
//   - each model call's text: TEXT_MESSAGE_START (role assistant) / TEXT_MESSAGE_CONTENT per piece
//     as the model writes it / TEXT_MESSAGE_END, one message per model call;
//   - each of keel's tool calls: TOOL_CALL_START (parentMessageId: that call's assistant message)
//     / TOOL_CALL_ARGS (the arguments) / TOOL_CALL_END, and TOOL_CALL_RESULT (role tool) with
//     what it returned (for a call the approval policy denied: the denial);
//   - a STATE_SNAPSHOT when a model call starts: the client's state with a "keel" object
//     {session_id, run_id, round, status}.
// With ask_approvals() (the run's approvals wait for a person, waiting_approver.hpp), each call
// the policy asks about is announced (START/ARGS/END) and followed by
//   CUSTOM keel.approval_requested {approvalId, toolCallId, toolCallName, arguments, risk, reason,
//                                   decideUrl}
// and a STATE_SNAPSHOT with status "waiting_approval"; decideUrl is keel serve's
// POST /api/approvals/{approvalId}. Once decided: CUSTOM keel.approval_decided {approvalId,
// toolCallId, verdict, reason}; a denied call's TOOL_CALL_RESULT is its denial.
// finish(): the client's tool calls the run handed over (START/ARGS/END, no result: the front
// end runs them and sends a new run with their results), a last STATE_SNAPSHOT, RUN_FINISHED
// with outcome {type:"success", pendingToolCallIds} and the run's token usage. fail(): the last
// STATE_SNAPSHOT and RUN_ERROR {message, code}; the stream ends either way.
//
// Thread-safety: the hooks are called by the run one at a time; finish/fail from the run's thread
// after it. The responder may be closed by the client at any time (writes then do nothing).
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "keel/ask_user.hpp"
#include "keel/hooks.hpp"
#include "server/http_responder.hpp"

namespace keel::api {

struct AguiRunIds {
  std::string thread_id;  // the client's
  std::string run_id;     // the client's
};

class AguiRelay final : public Hooks {
 public:
  // `client_state`: the state the client sent (an object is kept and gets the "keel" key; anything
  // else is replaced). `headers`: CORS headers for the answer. `on_session`: told the run's
  // session once it is stored.
  AguiRelay(std::shared_ptr<server::HttpResponder> out, AguiRunIds ids, nlohmann::json client_state,
            server::HttpHeaders headers, std::function<void(const std::string&)> on_session = {});

  // Calls that need approval are shown as waiting for a decision (see above); without it they are
  // only shown denied, as the approver decides at once.
  void ask_approvals() { ask_approvals_ = true; }
  // Shows an ask_user question waiting for an answer: CUSTOM keel.question_asked {questionId,
  // question, options, allowFreeText, answerUrl} (answerUrl: POST /api/questions/{questionId}).
  // Called from the tool's thread while the run's thread waits for the tools.
  void question_asked(const std::string& question_id, const UserQuestion& question);
  // Whether the stream has started (the run began).
  bool started() const { return started_; }
  void finish(const RunOutcome& outcome);
  void fail(std::string_view code, std::string_view message);

  void on_run_started(RunContext& ctx) override;
  void on_status_changed(RunContext& ctx, RunStatus status) override;
  void on_model_delta(RunContext& ctx, std::string_view text) override;
  void on_tool_call(RunContext& ctx, const ToolCall& call) override;
  void on_tool_result(RunContext& ctx, const ToolCall& call, const ToolResult& result) override;
  void on_approval_requested(RunContext& ctx, const ApprovalRequest& request) override;
  // A denied call never runs: it is shown with the denial the model reads as its result.
  void on_approval_decided(RunContext& ctx, const ApprovalRequest& request, const ApprovalDecision& decision) override;

 private:
  void send(const nlohmann::json& event);
  void snapshot(std::string_view status);
  const std::string& round_message_id();
  void end_text();
  // The tag of this model call's tool call ids: the run's tag and the round.
  std::string call_tag() const;
  // Sends START/ARGS/END for `call`; returns its AG-UI id.
  std::string announce_call(const ToolCall& call);
  // Sends TOOL_CALL_RESULT for `call` (announcing it first when needed), once per call.
  void send_result(const ToolCall& call, std::string_view content);
  void close(const nlohmann::json& last);

  std::shared_ptr<server::HttpResponder> out_;
  AguiRunIds ids_;
  nlohmann::json state_;  // the snapshot: the client's state and "keel"
  server::HttpHeaders headers_;
  std::function<void(const std::string&)> on_session_;
  bool started_ = false;
  bool ask_approvals_ = false;
  std::string tag_;                     // the run's tag of tool call ids
  int round_ = 0;                       // the model call in progress (RunContext::round)
  std::string message_id_;              // the current model call's assistant message; empty: none yet
  bool text_open_ = false;              // TEXT_MESSAGE_START sent, END not yet
  bool text_in_round_ = false;          // the current model call has shown text
  std::vector<std::string> announced_;  // AG-UI ids of the calls whose START/ARGS/END went out
  std::vector<std::string> answered_;   // AG-UI ids of the calls whose TOOL_CALL_RESULT went out
  std::vector<std::string> asked_;      // approval ids announced by keel.approval_requested
};

}  // namespace keel::api
