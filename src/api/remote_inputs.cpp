#include "api/remote_inputs.hpp"

#include <algorithm>
#include <map>

namespace keel::api {
namespace {

// How far back a parked run's session log is read for its open requests: a parked run's requests
// come right before its run_suspended event.
constexpr int64_t kRecentEvents = 500;

// The requests of `run` still open at the end of its session's recent events: asked, and neither
// decided nor answered since the run last started or resumed.
void collect_open(const std::vector<ServerEvent>& events, const ServerCheckpoint& run, RemoteInputKind kind,
                  nlohmann::json& out) {
  std::map<std::string, nlohmann::json> approvals;  // by call id
  std::map<std::string, nlohmann::json> questions;  // by question id
  for (const ServerEvent& e : events) {
    if (e.run_id != run.run_id) continue;
    if (e.type == "run_started" || e.type == "run_resumed") {
      approvals.clear();
      questions.clear();
      continue;
    }
    nlohmann::json data = nlohmann::json::parse(e.data, nullptr, false);
    if (!data.is_object()) continue;
    if (e.type == "approval_requested" && data["call"].is_object()) {
      approvals[data["call"].value("id", "")] = {
          {"id", data.value("approval_id", "")}, {"run_id", run.run_id},
          {"session_id", run.session_id},        {"call", data["call"]},
          {"risk", data.value("risk", "")},      {"reason", data.value("reason", "")}};
    } else if (e.type == "approval_decided") {
      approvals.erase(data.value("call_id", ""));
    } else if (e.type == "question") {
      questions[data.value("question_id", "")] = {{"id", data.value("question_id", "")},
                                                  {"run_id", run.run_id},
                                                  {"session_id", run.session_id},
                                                  {"question", data.value("question", "")},
                                                  {"options", data.value("options", nlohmann::json::array())},
                                                  {"allow_free_text", data.value("allow_free_text", true)}};
    } else if (e.type == "question_answered") {
      questions.erase(data.value("question_id", ""));
    }
  }
  if (kind == RemoteInputKind::kApprovals) {
    for (auto& [call, item] : approvals) {
      if (!item["id"].get<std::string>().empty()) out.push_back(std::move(item));
    }
  } else {
    for (auto& [id, item] : questions) {
      if (!id.empty()) out.push_back(std::move(item));
    }
  }
}

}  // namespace

nlohmann::json remote_inputs(Store& store, const std::string& workspace, const std::string& own_instance,
                             RemoteInputKind kind) {
  nlohmann::json out = nlohmann::json::array();
  Result<std::vector<ServerCheckpoint>> parked = store.list_server_checkpoints();
  if (!parked.ok()) return out;
  const char* waiting_for = kind == RemoteInputKind::kApprovals ? "approval" : "answer";
  for (const ServerCheckpoint& run : *parked) {
    if (run.workspace != workspace || run.owner == own_instance || run.waiting != waiting_for) continue;
    Result<int64_t> last = store.last_server_event_seq(run.session_id);
    if (!last.ok()) continue;
    Result<std::vector<ServerEvent>> events =
        store.list_server_events(run.session_id, std::max<int64_t>(0, *last - kRecentEvents), kRecentEvents);
    if (events.ok()) collect_open(*events, run, kind, out);
  }
  return out;
}

}  // namespace keel::api
