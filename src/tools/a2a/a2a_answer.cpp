// The tool output of a remote agent's answer; see a2a_answer.hpp.
#include "tools/a2a/a2a_answer.hpp"

#include "core/text/utf8_text.hpp"

namespace keel::detail {
namespace {

// The ids a later call needs, one per line.
std::string a2a_ids(const A2aReply& reply) {
  std::string out;
  if (!reply.context_id.empty()) out += "\ncontext_id: " + sanitize_utf8(reply.context_id);
  if (!reply.task_id.empty()) out += "\ntask_id: " + sanitize_utf8(reply.task_id);
  return out;
}

// The ids in parentheses, for error messages.
std::string a2a_ids_inline(const A2aReply& reply) {
  std::string out;
  if (!reply.context_id.empty()) out += "context_id " + sanitize_utf8(reply.context_id);
  if (!reply.task_id.empty()) out += (out.empty() ? "" : ", ") + std::string("task_id ") + sanitize_utf8(reply.task_id);
  return out.empty() ? out : " (" + out + ")";
}

// `text` as valid UTF-8, cut at `max_bytes` with a note saying so.
std::string a2a_bounded(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return sanitize_utf8(text);
  std::string out = sanitize_utf8(text.substr(0, utf8_cut_length(text, max_bytes)));
  return out + "\n[... the answer was cut at " + std::to_string(max_bytes) + " of its " + std::to_string(text.size()) +
         " bytes]";
}

// The answer's text: the artifacts (or a message's parts), then the status message.
std::string a2a_text(const A2aReply& reply) {
  std::string text = reply.answer_text;
  if (!reply.status_text.empty() && reply.status_text != reply.answer_text) {
    if (!text.empty()) text += "\n";
    text += reply.status_text;
  }
  return text;
}

}  // namespace

Result<std::string> a2a_answer(const A2aReply& reply, std::string_view agent_name, std::string_view tool_name,
                               size_t max_text_bytes) {
  const std::string who = "remote agent '" + std::string(agent_name) + "'";
  const std::string state(a2a_task_state_name(reply.state));
  const std::string text = a2a_text(reply);
  if (!reply.is_task) {
    return who + " answered:\n" + (text.empty() ? "(no text)" : a2a_bounded(text, max_text_bytes)) + "\n" +
           a2a_ids(reply);
  }
  switch (reply.state) {
    case A2aTaskState::kCompleted:
      return who + " answered (task completed):\n" + (text.empty() ? "(no text)" : a2a_bounded(text, max_text_bytes)) +
             "\n" + a2a_ids(reply);
    case A2aTaskState::kInputRequired: {
      // The question is the status message; an agent that put it elsewhere still gets it shown.
      const std::string question = reply.status_text.empty() ? reply.answer_text : reply.status_text;
      return "the remote agent asks: " + (question.empty() ? "(no text)" : a2a_bounded(question, max_text_bytes)) +
             "\n\nTo answer, call " + std::string(tool_name) +
             " again with the answer as message and this context_id." + "\n" + a2a_ids(reply);
    }
    case A2aTaskState::kFailed:
    case A2aTaskState::kRejected:
    case A2aTaskState::kCanceled: {
      std::string message = who + " ended the task " + state + a2a_ids_inline(reply);
      if (!text.empty()) message += ": " + a2a_bounded(text, 2000);
      return Status(reply.state == A2aTaskState::kFailed ? ErrorCode::kUnavailable : ErrorCode::kFailedPrecondition,
                    std::move(message));
    }
    case A2aTaskState::kAuthRequired: {
      std::string message = who + " needs authorization to go on (task auth-required)" + a2a_ids_inline(reply);
      if (!text.empty()) message += ": " + a2a_bounded(text, 2000);
      return Status::Unauthenticated(std::move(message));
    }
    default:
      break;
  }
  std::string word =
      reply.state_word.empty() ? std::string("no state") : "state '" + sanitize_utf8(reply.state_word) + "'";
  return Status::Unavailable(who + " answered with a task in " + word + ", which keel does not know how to read" +
                             a2a_ids_inline(reply));
}

}  // namespace keel::detail
