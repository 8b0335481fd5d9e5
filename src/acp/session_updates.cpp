#include "acp/session_updates.hpp"

#include <string_view>

#include "core/text/utf8_text.hpp"

namespace keel::acp {

using nlohmann::json;

std::string tool_kind(const std::string& tool) {
  static const std::pair<std::string_view, std::string_view> kKinds[] = {
      {"fs_read", "read"},      {"fs_list", "read"},       {"fs_tree", "read"},        {"fs_stat", "read"},
      {"fs_walk", "read"},      {"fs_roots", "read"},      {"fs_write", "edit"},       {"fs_delete", "delete"},
      {"fs_move", "move"},      {"fs_copy", "move"},       {"fs_search", "search"},    {"tool_search", "search"},
      {"shell", "execute"},     {"script", "execute"},     {"web_fetch", "fetch"},     {"http_fetch", "fetch"},
      {"extract_links", "fetch"}, {"page_metadata", "fetch"}, {"ask_user", "other"}};
  for (const auto& [name, kind] : kKinds) {
    if (tool == name) return std::string(kind);
  }
  return "other";
}

namespace {

// The title of a call whose arguments are already parsed.
std::string title_of(const std::string& tool, const json& args) {
  if (args.is_object()) {
    for (const char* key : {"path", "command", "url", "query", "pattern", "question"}) {
      auto it = args.find(key);
      if (it != args.end() && it->is_string() && !it->get<std::string>().empty()) {
        const std::string& v = it->get_ref<const std::string&>();
        return tool + " " + v.substr(0, detail::utf8_prefix_bytes(v, 120));
      }
    }
  }
  return tool;
}

}  // namespace

std::string tool_title(const ToolCall& call) {
  return title_of(call.name, json::parse(call.arguments, nullptr, false));
}

json text_block(const std::string& text) {
  return {{"type", "text"}, {"text", text}};
}

json tool_call_json(const ToolCall& call) {
  json raw = json::parse(call.arguments, nullptr, false);  // once, for the title and as rawInput
  std::string title = title_of(call.name, raw);
  if (raw.is_discarded()) raw = call.arguments;
  return {{"toolCallId", call.id}, {"title", std::move(title)}, {"kind", tool_kind(call.name)},
          {"status", "pending"},   {"rawInput", std::move(raw)}};
}

void SessionUpdates::send(const std::string& kind, json fields) {
  fields["sessionUpdate"] = kind;
  peer_.notify("session/update", {{"sessionId", session_id_}, {"update", std::move(fields)}});
}

void SessionUpdates::on_run_started(RunContext&) {
  plan_.clear();
  answer_streamed_ = streamed_reasoning_ = false;
}

void SessionUpdates::on_model_delta(RunContext&, std::string_view text) {
  if (text.empty()) return;
  answer_streamed_ = true;
  send("agent_message_chunk", {{"content", text_block(std::string(text))}});
}

void SessionUpdates::on_reasoning_delta(RunContext&, std::string_view text) {
  if (text.empty()) return;
  streamed_reasoning_ = true;
  send("agent_thought_chunk", {{"content", text_block(std::string(text))}});
}

void SessionUpdates::on_model_reply(RunContext&, const ModelReply& reply) {
  // Reasoning of a whole reply (no streaming, or a backend that does not stream) arrives here only.
  if (!streamed_reasoning_ && !reply.reasoning.empty())
    send("agent_thought_chunk", {{"content", text_block(reply.reasoning)}});
  streamed_reasoning_ = false;
  // Text that came with tool calls was narration: the answer is still to come.
  if (!reply.tool_calls.empty()) answer_streamed_ = false;
}

void SessionUpdates::on_run_finished(RunContext&, const RunOutcome& outcome) {
  // A whole reply, or an answer the core wrote (a plan's reply with its results filled in), was
  // not streamed: it goes out now.
  if (!answer_streamed_ && !outcome.answer.empty()) send("agent_message_chunk", {{"content", text_block(outcome.answer)}});
}

void SessionUpdates::on_tool_call(RunContext&, const ToolCall& call) {
  json update = tool_call_json(call);
  update["status"] = "in_progress";
  send("tool_call", std::move(update));
}

void SessionUpdates::on_approval_decided(RunContext&, const ApprovalRequest& request, const ApprovalDecision& decision) {
  if (decision.verdict != ApprovalVerdict::kDeny) return;
  // A denied call never runs: its card ends here, with the reason the model is given.
  json update = tool_call_json(request.call);
  update["status"] = "failed";
  update["content"] = json::array({{{"type", "content"}, {"content", text_block("not run: " + decision.reason)}}});
  send("tool_call", std::move(update));
}

void SessionUpdates::on_tool_result(RunContext&, const ToolCall& call, const ToolResult& result) {
  send("tool_call_update",
       {{"toolCallId", call.id},
        {"status", result.ok() ? "completed" : "failed"},
        {"content", json::array({{{"type", "content"}, {"content", text_block(result.content)}}})},
        {"rawOutput", {{"content", result.content}, {"ok", result.ok()}, {"truncated", result.truncated}}}});
}

void SessionUpdates::on_plan_step(RunContext&, const PlanStepUpdate& step) {
  if (step.steps == 0 || step.index >= step.steps) return;
  if (plan_.size() != step.steps) {
    plan_.assign(step.steps, {{"content", ""}, {"priority", "medium"}, {"status", "pending"}});
  }
  std::string content = step.tool;
  if (!step.why.empty()) content += ": " + step.why;
  if (step.state == PlanStepState::kFailed || step.state == PlanStepState::kSkipped)
    content += " (" + std::string(plan_step_state_name(step.state)) + (step.detail.empty() ? "" : ": " + step.detail) + ")";
  json& entry = plan_[step.index];
  entry["content"] = content;
  entry["status"] = step.state == PlanStepState::kPlanned     ? "pending"
                    : step.state == PlanStepState::kExecuting ? "in_progress"
                                                              : "completed";
  send("plan", {{"entries", plan_}});
}

}  // namespace keel::acp
