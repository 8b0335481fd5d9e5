#include "api/a2a_task.hpp"

#include <atomic>
#include <ctime>

#include "core/text/utf8_text.hpp"

namespace keel::api::a2a {

using nlohmann::json;

std::string task_state(RunState state, std::optional<RunPhase> phase) {
  switch (state) {
    case RunState::kFinished:
      return "TASK_STATE_COMPLETED";
    case RunState::kFailed:
      return "TASK_STATE_FAILED";
    case RunState::kAborted:
      return "TASK_STATE_CANCELED";
    case RunState::kWaitingApproval:
      return "TASK_STATE_INPUT_REQUIRED";
    case RunState::kRunning:
      break;
  }
  if (phase == RunPhase::kWaitingApproval || phase == RunPhase::kWaitingAnswer) return "TASK_STATE_INPUT_REQUIRED";
  if (phase == RunPhase::kQueued) return "TASK_STATE_SUBMITTED";
  return "TASK_STATE_WORKING";
}

bool final_state(const std::string& state) {
  return state == "TASK_STATE_COMPLETED" || state == "TASK_STATE_FAILED" || state == "TASK_STATE_CANCELED" ||
         state == "TASK_STATE_REJECTED";
}

namespace {

json text_part(const std::string& text) { return {{"text", text}}; }

}  // namespace

json agent_message(const std::string& text, const std::string& context_id, const std::string& task_id) {
  static std::atomic<unsigned long> counter{0};
  return {{"messageId", task_id + "-m" + std::to_string(++counter)},
          {"contextId", context_id},
          {"taskId", task_id},
          {"role", "ROLE_AGENT"},
          {"parts", json::array({text_part(text)})}};
}

std::string waiting_for(const PendingInput& pending, const std::string& run_id) {
  for (const PendingApproval& a : pending.approvals()) {
    if (a.run_id != run_id) continue;
    return "keel asks for approval to run " + a.request.call.name + " " + a.request.call.arguments +
           (a.request.reason.empty() ? "" : " (" + a.request.reason + ")") +
           ". Answer in this task: yes, always (this tool for the rest of the run) or no (optionally with a reason).";
  }
  for (const PendingQuestion& q : pending.questions()) {
    if (q.run_id != run_id) continue;
    std::string text = "keel asks: " + q.question.question;
    if (!q.question.options.empty()) {
      text += " Options:";
      for (const std::string& o : q.question.options) text += " [" + o + "]";
    }
    return text + " Answer in this task.";
  }
  return "";
}

json task_json(const RunRecord& run, std::optional<RunPhase> phase, const std::string& status_text,
               const std::vector<StoredMessage>* history) {
  const std::string state = task_state(run.state, phase);
  json status = {{"state", state}, {"timestamp", detail::iso8601_utc(std::time(nullptr))}};
  std::string text = status_text;
  if (text.empty() && (state == "TASK_STATE_FAILED" || state == "TASK_STATE_CANCELED")) text = run.error;
  if (!text.empty()) status["message"] = agent_message(text, run.session_id, run.id);
  json task = {{"id", run.id}, {"contextId", run.session_id}, {"status", std::move(status)}, {"artifacts", json::array()}};
  if (run.state == RunState::kFinished) {
    task["artifacts"].push_back(
        {{"artifactId", run.id + "-answer"}, {"name", "answer"}, {"parts", json::array({text_part(run.answer)})}});
  }
  if (history != nullptr) {
    json list = json::array();
    for (const StoredMessage& m : *history) {
      if (m.run_id != run.id || m.message.content.empty()) continue;
      if (m.message.role != Role::kUser && m.message.role != Role::kAssistant) continue;
      json msg = {{"messageId", run.id + "-" + std::to_string(m.seq)},
                  {"contextId", run.session_id},
                  {"taskId", run.id},
                  {"role", m.message.role == Role::kUser ? "ROLE_USER" : "ROLE_AGENT"},
                  {"parts", json::array({text_part(m.message.content)})}};
      list.push_back(std::move(msg));
    }
    task["history"] = std::move(list);
  }
  return task;
}

Result<std::string> message_text(const json& message) {
  if (!message.is_object()) return Status::InvalidArgument("'message' must be an object");
  const json parts = message.value("parts", json());
  if (!parts.is_array() || parts.empty()) return Status::InvalidArgument("the message needs a non-empty 'parts' array");
  std::string text;
  for (const json& p : parts) {
    if (!p.is_object()) return Status::InvalidArgument("each part must be an object");
    if (p.contains("text") && p["text"].is_string()) {
      if (!text.empty()) text += "\n";
      text += p["text"].get<std::string>();
    } else if (p.contains("data")) {
      if (!text.empty()) text += "\n";
      text += p["data"].dump();
    } else if (p.contains("url") || p.contains("raw") || p.contains("file")) {
      return Status::FailedPrecondition("keel takes text and data parts; file parts (url, raw, file) are not supported");
    } else {
      return Status::InvalidArgument("a part must hold text, data, url or raw");
    }
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return Status::InvalidArgument("the message has no text");
  return text;
}

}  // namespace keel::api::a2a
