// The A2A wire shapes; see a2a_wire.hpp.
#include "tools/a2a/a2a_wire.hpp"

#include <array>
#include <utility>

#include "core/text/utf8_text.hpp"

namespace keel::detail {
namespace {

using nlohmann::json;

// Compact JSON that never throws on odd strings.
std::string a2a_dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

// At most 300 bytes of `text` on one line, for messages.
std::string a2a_excerpt(std::string_view text) {
  std::string out = sanitize_utf8(text.substr(0, utf8_cut_length(text, 300)));
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (text.size() > 300) out += "...";
  return out;
}

// The string at `key` of object `obj`, or "" (absent, or not a string).
std::string a2a_string(const json& obj, const char* key) {
  if (!obj.is_object()) return {};
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The A2A meaning of a JSON-RPC error code, and the Status kind it maps to.
std::pair<const char*, ErrorCode> a2a_error_meaning(int64_t code) {
  switch (code) {
    case -32700:
      return {"parse error", ErrorCode::kInvalidArgument};
    case -32600:
      return {"invalid request", ErrorCode::kInvalidArgument};
    case -32601:
      return {"method not found", ErrorCode::kFailedPrecondition};
    case -32602:
      return {"invalid params", ErrorCode::kInvalidArgument};
    case -32603:
      return {"internal error", ErrorCode::kUnavailable};
    case -32001:
      return {"task not found", ErrorCode::kNotFound};
    case -32002:
      return {"task not cancelable", ErrorCode::kFailedPrecondition};
    case -32003:
      return {"push notifications not supported", ErrorCode::kFailedPrecondition};
    case -32004:
      return {"unsupported operation", ErrorCode::kFailedPrecondition};
    case -32005:
      return {"content type not supported", ErrorCode::kInvalidArgument};
    case -32006:
      return {"invalid agent response", ErrorCode::kUnavailable};
    case -32007:
      return {"extended card not configured", ErrorCode::kFailedPrecondition};
    case -32008:
      return {"extension support required", ErrorCode::kFailedPrecondition};
    case -32009:
      return {"version not supported", ErrorCode::kFailedPrecondition};
    default:
      return {"error", ErrorCode::kUnavailable};
  }
}

// One part as text: text parts as they are, data as compact JSON, files described.
std::string a2a_part_text(const json& part) {
  if (!part.is_object()) return {};
  if (auto t = part.find("text"); t != part.end() && t->is_string()) return t->get<std::string>();
  if (auto d = part.find("data"); d != part.end()) return a2a_dump(*d);
  std::string name = a2a_string(part, "filename");
  std::string media = a2a_string(part, "mediaType");
  std::string url = a2a_string(part, "url");
  bool bytes = part.contains("raw");
  if (auto f = part.find("file"); f != part.end() && f->is_object()) {  // v0.3: {kind: file, file: {...}}
    name = a2a_string(*f, "name");
    media = a2a_string(*f, "mimeType");
    url = a2a_string(*f, "uri");
    bytes = f->contains("bytes");
  }
  std::string what = "[file";
  if (!name.empty()) what += " " + name;
  if (!media.empty()) what += " (" + media + ")";
  if (!url.empty()) return what + ": " + url + "]";
  if (bytes) return what + ", inline bytes not shown]";
  return {};
}

// The text of a message's parts, one part per line.
std::string a2a_parts_text(const json& message) {
  std::string out;
  if (!message.is_object()) return out;
  auto parts = message.find("parts");
  if (parts == message.end() || !parts->is_array()) return out;
  for (const json& part : *parts) {
    std::string text = a2a_part_text(part);
    if (text.empty()) continue;
    if (!out.empty()) out += "\n";
    out += text;
  }
  return out;
}

bool a2a_is_agent_role(const json& message) {
  const std::string role = a2a_string(message, "role");
  return role == "ROLE_AGENT" || role == "agent";
}

Result<A2aReply> a2a_reply_from_message(const json& message, std::string_view who) {
  if (!message.is_object()) {
    return Status::InvalidArgument(std::string(who) + " answered with a message that is not a JSON object");
  }
  A2aReply reply;
  reply.task_id = a2a_string(message, "taskId");
  reply.context_id = a2a_string(message, "contextId");
  reply.answer_text = a2a_parts_text(message);
  return reply;
}

Result<A2aReply> a2a_reply_from_task(const json& task, std::string_view who) {
  if (!task.is_object() || a2a_string(task, "id").empty()) {
    return Status::InvalidArgument(std::string(who) +
                                   " answered with a task without an id: " + a2a_excerpt(a2a_dump(task)));
  }
  A2aReply reply;
  reply.is_task = true;
  reply.task_id = a2a_string(task, "id");
  reply.context_id = a2a_string(task, "contextId");
  if (auto status = task.find("status"); status != task.end() && status->is_object()) {
    reply.state_word = a2a_string(*status, "state");
    reply.state = parse_a2a_task_state(reply.state_word);
    if (auto message = status->find("message"); message != status->end()) reply.status_text = a2a_parts_text(*message);
  }
  if (auto artifacts = task.find("artifacts"); artifacts != task.end() && artifacts->is_array()) {
    for (const json& artifact : *artifacts) {
      std::string text = a2a_parts_text(artifact);
      if (text.empty()) continue;
      if (!reply.answer_text.empty()) reply.answer_text += "\n";
      reply.answer_text += text;
    }
  }
  if (reply.answer_text.empty() && reply.status_text.empty()) {
    // Some agents answer only in the history: its last message of the agent.
    if (auto history = task.find("history"); history != task.end() && history->is_array()) {
      for (auto it = history->rbegin(); it != history->rend(); ++it) {
        if (a2a_is_agent_role(*it)) {
          reply.answer_text = a2a_parts_text(*it);
          break;
        }
      }
    }
  }
  return reply;
}

}  // namespace

std::string_view a2a_method_name(A2aProtocol protocol, A2aMethod method) {
  const bool v1 = protocol == A2aProtocol::kV1;
  switch (method) {
    case A2aMethod::kSendMessage:
      return v1 ? "SendMessage" : "message/send";
    case A2aMethod::kGetTask:
      return v1 ? "GetTask" : "tasks/get";
    case A2aMethod::kCancelTask:
      return v1 ? "CancelTask" : "tasks/cancel";
  }
  return "SendMessage";
}

A2aTaskState parse_a2a_task_state(std::string_view word) {
  static constexpr std::array<std::pair<std::string_view, A2aTaskState>, 8> kStates = {{
      {"submitted", A2aTaskState::kSubmitted},
      {"working", A2aTaskState::kWorking},
      {"completed", A2aTaskState::kCompleted},
      {"failed", A2aTaskState::kFailed},
      {"canceled", A2aTaskState::kCanceled},
      {"rejected", A2aTaskState::kRejected},
      {"input_required", A2aTaskState::kInputRequired},
      {"auth_required", A2aTaskState::kAuthRequired},
  }};
  std::string key(word);
  if (key.starts_with("TASK_STATE_")) {
    key.erase(0, 11);
    for (char& c : key) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  } else {
    for (char& c : key) {
      if (c == '-') c = '_';
    }
  }
  if (key == "cancelled") key = "canceled";
  for (const auto& [name, state] : kStates) {
    if (name == key) return state;
  }
  return A2aTaskState::kUnknown;
}

std::string_view a2a_task_state_name(A2aTaskState state) {
  switch (state) {
    case A2aTaskState::kSubmitted:
      return "submitted";
    case A2aTaskState::kWorking:
      return "working";
    case A2aTaskState::kCompleted:
      return "completed";
    case A2aTaskState::kFailed:
      return "failed";
    case A2aTaskState::kCanceled:
      return "canceled";
    case A2aTaskState::kRejected:
      return "rejected";
    case A2aTaskState::kInputRequired:
      return "input-required";
    case A2aTaskState::kAuthRequired:
      return "auth-required";
    case A2aTaskState::kUnknown:
      break;
  }
  return "unknown";
}

bool a2a_task_running(A2aTaskState state) {
  return state == A2aTaskState::kSubmitted || state == A2aTaskState::kWorking;
}

std::string a2a_rpc_request(std::string_view method, const nlohmann::json& params, int64_t id) {
  json request = {{"jsonrpc", "2.0"}, {"id", id}, {"method", std::string(method)}, {"params", params}};
  return a2a_dump(request);
}

Result<nlohmann::json> a2a_rpc_result(std::string_view body, int64_t id, std::string_view method,
                                      std::string_view who) {
  const std::string prefix = std::string(who) + " answered " + std::string(method);
  json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return Status::Unavailable(prefix + " with something that is not a JSON-RPC response: " +
                               (body.empty() ? std::string("an empty body") : a2a_excerpt(body)));
  }
  if (auto error = doc.find("error"); error != doc.end() && !error->is_null()) {
    int64_t code = 0;
    if (error->is_object()) {
      if (auto c = error->find("code"); c != error->end() && c->is_number_integer()) code = c->get<int64_t>();
    }
    const auto [meaning, kind] = a2a_error_meaning(code);
    std::string message = prefix + " with error " + std::to_string(code) + " (" + meaning + ")";
    if (std::string text = a2a_string(*error, "message"); !text.empty()) message += ": " + a2a_excerpt(text);
    if (error->is_object() && error->contains("data") && !error->at("data").is_null()) {
      message += " [data: " + a2a_excerpt(a2a_dump(error->at("data"))) + "]";
    }
    return Status(kind, std::move(message));
  }
  auto result = doc.find("result");
  if (result == doc.end()) return Status::Unavailable(prefix + " without a result or an error: " + a2a_excerpt(body));
  auto rid = doc.find("id");
  if (rid == doc.end() || !rid->is_number_integer() || rid->get<int64_t>() != id) {
    return Status::Unavailable(prefix + " with the id of another request (" +
                               (rid == doc.end() ? std::string("none") : a2a_excerpt(a2a_dump(*rid))) + ", expected " +
                               std::to_string(id) + ")");
  }
  return std::move(*result);
}

nlohmann::json a2a_send_params(A2aProtocol protocol, std::string_view text, std::string_view message_id,
                               std::string_view context_id, std::string_view task_id) {
  const bool v1 = protocol == A2aProtocol::kV1;
  json part = {{"text", std::string(text)}};
  json message = {{"messageId", std::string(message_id)}, {"role", v1 ? "ROLE_USER" : "user"}};
  if (!v1) {
    part["kind"] = "text";
    message["kind"] = "message";
  }
  message["parts"] = json::array({part});
  if (!context_id.empty()) message["contextId"] = std::string(context_id);
  if (!task_id.empty()) message["taskId"] = std::string(task_id);
  // Not waiting on the server: the call gets the task's id at once, polls it, and can cancel it.
  json configuration = v1 ? json{{"returnImmediately", true}} : json{{"blocking", false}};
  return {{"message", std::move(message)}, {"configuration", std::move(configuration)}};
}

nlohmann::json a2a_task_params(std::string_view task_id) {
  return {{"id", std::string(task_id)}};
}

Result<A2aReply> parse_a2a_send_result(const nlohmann::json& result, std::string_view who) {
  if (!result.is_object()) {
    return Status::InvalidArgument(std::string(who) + " answered SendMessage with a result that is not an object: " +
                                   a2a_excerpt(a2a_dump(result)));
  }
  if (auto task = result.find("task"); task != result.end() && task->is_object())
    return a2a_reply_from_task(*task, who);
  if (auto msg = result.find("message"); msg != result.end() && msg->is_object())
    return a2a_reply_from_message(*msg, who);
  const std::string kind = a2a_string(result, "kind");
  if (kind == "task") return a2a_reply_from_task(result, who);
  if (kind == "message") return a2a_reply_from_message(result, who);
  return Status::InvalidArgument(
      std::string(who) + " answered SendMessage with neither a task nor a message: " + a2a_excerpt(a2a_dump(result)));
}

Result<A2aReply> parse_a2a_task(const nlohmann::json& result, std::string_view who) {
  if (result.is_object()) {
    if (auto task = result.find("task"); task != result.end() && task->is_object())
      return a2a_reply_from_task(*task, who);
  }
  return a2a_reply_from_task(result, who);
}

}  // namespace keel::detail
