#include "api/a2a_v03.hpp"

#include <utility>

#include "core/text/text_util.hpp"

namespace keel::api::a2a {

using nlohmann::json;

std::string v1_method_of_v03(std::string_view method) {
  if (method == "message/send") return "SendMessage";
  if (method == "message/stream") return "SendStreamingMessage";
  if (method == "tasks/get") return "GetTask";
  if (method == "tasks/cancel") return "CancelTask";
  return "";
}

bool is_v03_version(std::string_view version) { return version == "0.3" || version == "0.3.0"; }

json v1_params_from_v03(json params) {
  if (!params.is_object()) return params;
  auto config = params.find("configuration");
  if (config != params.end() && config->is_object() && config->value("blocking", true) == false) {
    (*config)["returnImmediately"] = true;
  }
  return params;
}

namespace {

// "TASK_STATE_INPUT_REQUIRED" -> "input-required".
std::string v03_state(const std::string& state) {
  constexpr std::string_view kPrefix = "TASK_STATE_";
  if (state.rfind(kPrefix, 0) != 0) return state;
  std::string out = detail::lowercase(state.substr(kPrefix.size()));
  for (char& c : out) {
    if (c == '_') c = '-';
  }
  if (out == "cancelled") out = "canceled";
  return out;
}

json v03_part(const json& part) {
  if (!part.is_object()) return part;
  json out = part;
  if (part.contains("text")) {
    out["kind"] = "text";
  } else if (part.contains("data")) {
    out["kind"] = "data";
  }
  return out;
}

json v03_parts(const json& parts) {
  json out = json::array();
  if (parts.is_array()) {
    for (const json& p : parts) out.push_back(v03_part(p));
  }
  return out;
}

json v03_message(const json& message) {
  if (!message.is_object()) return message;
  json out = message;
  out["kind"] = "message";
  const std::string role = message.value("role", "");
  out["role"] = role == "ROLE_USER" ? "user" : "agent";
  out["parts"] = v03_parts(message.value("parts", json::array()));
  return out;
}

json v03_status(const json& status) {
  if (!status.is_object()) return status;
  json out = status;
  out["state"] = v03_state(status.value("state", ""));
  if (status.contains("message")) out["message"] = v03_message(status["message"]);
  return out;
}

json v03_artifact(const json& artifact) {
  if (!artifact.is_object()) return artifact;
  json out = artifact;
  out["parts"] = v03_parts(artifact.value("parts", json::array()));
  return out;
}

json v03_task(const json& task) {
  if (!task.is_object()) return task;
  json out = task;
  out["kind"] = "task";
  if (task.contains("status")) out["status"] = v03_status(task["status"]);
  if (task.contains("artifacts") && task["artifacts"].is_array()) {
    json artifacts = json::array();
    for (const json& a : task["artifacts"]) artifacts.push_back(v03_artifact(a));
    out["artifacts"] = std::move(artifacts);
  }
  if (task.contains("history") && task["history"].is_array()) {
    json history = json::array();
    for (const json& m : task["history"]) history.push_back(v03_message(m));
    out["history"] = std::move(history);
  }
  return out;
}

}  // namespace

json v03_result(std::string_view v1_method, const json& result) {
  if (v1_method == "SendMessage" && result.is_object()) {
    if (result.contains("task")) return v03_task(result["task"]);
    if (result.contains("message")) return v03_message(result["message"]);
  }
  if (v1_method == "GetTask" || v1_method == "CancelTask") return v03_task(result);
  return result;
}

json v03_stream_event(const json& response) {
  if (!response.is_object()) return response;
  if (response.contains("task")) return v03_task(response["task"]);
  if (response.contains("message")) return v03_message(response["message"]);
  if (response.contains("statusUpdate")) {
    json out = response["statusUpdate"];
    out["kind"] = "status-update";
    const std::string state = out.value("status", json::object()).value("state", "");
    out["status"] = v03_status(out.value("status", json::object()));
    // 0.3 marks the event after which the stream ends: a final state, or input needed.
    out["final"] = state == "TASK_STATE_COMPLETED" || state == "TASK_STATE_FAILED" || state == "TASK_STATE_CANCELED" ||
                   state == "TASK_STATE_REJECTED" || state == "TASK_STATE_INPUT_REQUIRED" ||
                   state == "TASK_STATE_AUTH_REQUIRED";
    return out;
  }
  if (response.contains("artifactUpdate")) {
    json out = response["artifactUpdate"];
    out["kind"] = "artifact-update";
    out["artifact"] = v03_artifact(out.value("artifact", json::object()));
    return out;
  }
  return response;
}

namespace {

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

class V03Responder final : public server::HttpResponder {
 public:
  V03Responder(std::shared_ptr<server::HttpResponder> inner, std::string method)
      : inner_(std::move(inner)), method_(std::move(method)) {}

  void respond(int status, server::HttpHeaders headers, std::string body) override {
    json answer = json::parse(body, nullptr, false);
    if (answer.is_object() && answer.contains("result")) {
      answer["result"] = v03_result(method_, answer["result"]);
      body = dump(answer);
    }
    inner_->respond(status, std::move(headers), std::move(body));
  }
  void start_stream(int status, server::HttpHeaders headers) override { inner_->start_stream(status, std::move(headers)); }
  // Each write is one whole event: "data: {json-rpc answer}\n\n".
  bool write(std::string chunk) override {
    constexpr std::string_view kData = "data: ";
    if (chunk.rfind(kData, 0) == 0) {
      json answer = json::parse(chunk.substr(kData.size()), nullptr, false);
      if (answer.is_object() && answer.contains("result")) {
        answer["result"] = v03_stream_event(answer["result"]);
        chunk = std::string(kData) + dump(answer) + "\n\n";
      }
    }
    return inner_->write(std::move(chunk));
  }
  void end() override { inner_->end(); }
  void on_close(std::function<void()> callback) override { inner_->on_close(std::move(callback)); }
  bool closed() const override { return inner_->closed(); }

 private:
  std::shared_ptr<server::HttpResponder> inner_;
  std::string method_;
};

}  // namespace

std::shared_ptr<server::HttpResponder> v03_responder(std::shared_ptr<server::HttpResponder> inner, std::string v1_method) {
  return std::make_shared<V03Responder>(std::move(inner), std::move(v1_method));
}

}  // namespace keel::api::a2a
