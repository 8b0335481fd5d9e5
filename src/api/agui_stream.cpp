#include "api/agui_stream.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "api/agui_events.hpp"
#include "api/pending_input.hpp"
#include "keel/tool_spec.hpp"

namespace keel::api {

using nlohmann::json;

AguiRelay::AguiRelay(std::shared_ptr<server::HttpResponder> out, AguiRunIds ids, json client_state,
                     server::HttpHeaders headers, std::function<void(const std::string&)> on_session)
    : out_(std::move(out)),
      ids_(std::move(ids)),
      state_(client_state.is_object() ? std::move(client_state) : json::object()),
      headers_(std::move(headers)),
      on_session_(std::move(on_session)) {}

void AguiRelay::on_run_started(RunContext& ctx) {
  if (started_) return;
  started_ = true;
  tag_ = agui::run_tag(ctx.run_id);
  state_["keel"] = {{"session_id", ctx.session_id}, {"run_id", ctx.run_id}, {"round", 0}, {"status", "starting"}};
  if (on_session_ && !ctx.session_id.empty()) on_session_(ctx.session_id);
  server::HttpHeaders headers = headers_;
  headers.emplace_back("Content-Type", "text/event-stream");
  headers.emplace_back("Cache-Control", "no-cache");
  headers.emplace_back("X-Accel-Buffering", "no");  // proxies: pass events on as they come
  out_->start_stream(200, std::move(headers));
  send(agui::run_started(ids_.thread_id, ids_.run_id));
  snapshot("starting");
}

void AguiRelay::on_status_changed(RunContext& ctx, RunStatus status) {
  if (!started_ || status != RunStatus::kCallingModel) return;
  end_text();
  message_id_.clear();
  text_in_round_ = false;
  round_ = ctx.round;
  state_["keel"]["round"] = round_;
  snapshot(run_status_name(status));
}

void AguiRelay::on_model_delta(RunContext&, std::string_view text) {
  if (!started_ || text.empty()) return;
  if (!text_open_) {
    send(agui::text_message_start(round_message_id()));
    text_open_ = true;
  }
  text_in_round_ = true;
  send(agui::text_message_content(message_id_, text));
}

void AguiRelay::on_tool_call(RunContext&, const ToolCall& call) {
  if (!started_) return;
  end_text();
  const std::string id = agui::agui_call_id(call.id, call_tag());
  if (std::find(announced_.begin(), announced_.end(), id) == announced_.end()) announce_call(call);
}

void AguiRelay::on_tool_result(RunContext&, const ToolCall& call, const ToolResult& result) {
  if (!started_) return;
  end_text();
  send_result(call, result.content);
}

void AguiRelay::on_approval_requested(RunContext& ctx, const ApprovalRequest& request) {
  if (!started_ || !ask_approvals_) return;
  end_text();
  const std::string call_id = agui::agui_call_id(request.call.id, call_tag());
  if (std::find(announced_.begin(), announced_.end(), call_id) == announced_.end()) announce_call(request.call);
  const std::string approval_id = PendingInput::item_id(ctx.run_id, request.call.id);
  send(agui::custom("keel.approval_requested", {{"approvalId", approval_id},
                                                {"toolCallId", call_id},
                                                {"toolCallName", request.call.name},
                                                {"arguments", request.call.arguments},
                                                {"risk", risk_name(request.risk)},
                                                {"reason", request.reason},
                                                {"decideUrl", "/api/approvals/" + approval_id}}));
  asked_.push_back(approval_id);
  snapshot(run_status_name(RunStatus::kWaitingApproval));
}

void AguiRelay::question_asked(const std::string& question_id, const UserQuestion& question) {
  if (!started_) return;
  send(agui::custom("keel.question_asked", {{"questionId", question_id},
                                            {"question", question.question},
                                            {"options", question.options},
                                            {"allowFreeText", question.allow_free_text},
                                            {"answerUrl", "/api/questions/" + question_id}}));
}

void AguiRelay::on_approval_decided(RunContext& ctx, const ApprovalRequest& request, const ApprovalDecision& decision) {
  if (!started_) return;
  const std::string approval_id = PendingInput::item_id(ctx.run_id, request.call.id);
  if (std::find(asked_.begin(), asked_.end(), approval_id) != asked_.end()) {  // not the policy's own decisions
    send(agui::custom("keel.approval_decided",
                      {{"approvalId", approval_id},
                       {"toolCallId", agui::agui_call_id(request.call.id, call_tag())},
                       {"verdict", approval_verdict_name(decision.verdict)},
                       {"reason", decision.reason}}));
  }
  if (decision.verdict != ApprovalVerdict::kDeny) return;
  end_text();
  send_result(request.call, decision.reason.empty() ? "denied" : decision.reason);
}

void AguiRelay::finish(const RunOutcome& outcome) {
  end_text();
  if (outcome.client_calls.empty() && !text_in_round_ && !outcome.answer.empty()) {
    // The answer came in one piece (a backend that does not stream): it goes out as one message.
    send(agui::text_message_start(round_message_id()));
    send(agui::text_message_content(message_id_, outcome.answer));
    send(agui::text_message_end(message_id_));
  }
  std::vector<std::string> pending;
  for (const ToolCall& call : outcome.client_calls) pending.push_back(announce_call(call));
  snapshot("finished");
  close(agui::run_finished(ids_.thread_id, ids_.run_id, pending, outcome.usage));
}

void AguiRelay::fail(std::string_view code, std::string_view message) {
  end_text();
  snapshot("failed");
  close(agui::run_error(message, code));
}

void AguiRelay::send(const json& event) {
  out_->write(agui::frame(event));
}

void AguiRelay::snapshot(std::string_view status) {
  state_["keel"]["status"] = status;
  send(agui::state_snapshot(state_));
}

const std::string& AguiRelay::round_message_id() {
  if (message_id_.empty()) message_id_ = agui::new_message_id();
  return message_id_;
}

std::string AguiRelay::call_tag() const {
  return tag_ + std::to_string(round_);
}

void AguiRelay::end_text() {
  if (!text_open_) return;
  text_open_ = false;
  send(agui::text_message_end(message_id_));
}

std::string AguiRelay::announce_call(const ToolCall& call) {
  const std::string id = agui::agui_call_id(call.id, call_tag());
  send(agui::tool_call_start(id, call.name, round_message_id()));
  if (!call.arguments.empty()) send(agui::tool_call_args(id, call.arguments));
  send(agui::tool_call_end(id));
  announced_.push_back(id);
  return id;
}

void AguiRelay::send_result(const ToolCall& call, std::string_view content) {
  const std::string id = agui::agui_call_id(call.id, call_tag());
  if (std::find(answered_.begin(), answered_.end(), id) != answered_.end()) return;
  if (std::find(announced_.begin(), announced_.end(), id) == announced_.end()) announce_call(call);
  answered_.push_back(id);
  send(agui::tool_call_result(agui::new_message_id(), id, content));
}

void AguiRelay::close(const json& last) {
  send(last);
  out_->end();
}

}  // namespace keel::api
