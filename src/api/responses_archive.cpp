#include "api/responses_archive.hpp"

#include <utility>

#include "api/responses_reply.hpp"

namespace keel::api {

using nlohmann::json;

Result<std::optional<StoredResponse>> ResponsesArchive::find(const std::string& response_id) {
  std::optional<std::string> run_id = run_id_of_response(response_id);
  if (!run_id) return std::optional<StoredResponse>();
  Result<RunRecord> run = store_.get_run(*run_id);
  if (!run.ok()) {
    if (run.status().code() == ErrorCode::kNotFound) return std::optional<StoredResponse>();
    return run.status();
  }
  std::optional<json> record = read_stored_record(run->checkpoint);
  if (!record) return std::optional<StoredResponse>();
  StoredResponse out;
  out.run = std::move(run).value();
  out.response = std::move((*record)["response"]);
  out.input_items = record->contains("input_items") ? std::move((*record)["input_items"]) : json::array();
  return std::optional<StoredResponse>(std::move(out));
}

std::optional<json> ResponsesArchive::find_item(const std::string& item_id) {
  std::optional<std::string> response_id = response_id_of_item(item_id);
  if (!response_id) return std::nullopt;
  Result<std::optional<StoredResponse>> stored = find(*response_id);
  if (!stored.ok() || !stored->has_value()) return std::nullopt;
  for (const json* list : {&(*stored)->response["output"], &(*stored)->input_items}) {
    if (!list->is_array()) continue;
    for (const json& item : *list) {
      if (item.value("id", "") == item_id) return item;
    }
  }
  return std::nullopt;
}

Status ResponsesArchive::save(const std::string& run_id, const json& response, const json& input_items) {
  RunUpdate update;
  update.checkpoint = stored_record(response, input_items);
  return store_.update_run(run_id, update);
}

Status ResponsesArchive::forget(const std::string& run_id) {
  RunUpdate update;
  update.checkpoint = "";  // clears it
  return store_.update_run(run_id, update);
}

Result<std::string> ResponsesArchive::session_after(const RunRecord& previous) {
  KEEL_ASSIGN_OR_RETURN(RunRecord latest, store_.latest_run(previous.session_id));
  if (latest.id == previous.id) return previous.session_id;
  KEEL_ASSIGN_OR_RETURN(std::vector<StoredMessage> messages, store_.load_messages(previous.session_id));
  int64_t last = 0;
  for (const StoredMessage& m : messages) {
    if (m.run_id == previous.id) last = m.seq;
  }
  if (last == 0) return Status::NotFound("the previous response's messages are no longer stored");
  return store_.fork_session(previous.session_id, last);
}

std::vector<ToolCall> client_calls_of(const json& response) {
  std::vector<ToolCall> calls;
  if (!response.contains("output") || !response["output"].is_array()) return calls;
  for (const json& item : response["output"]) {
    if (item.value("type", "") != "function_call") continue;
    ToolCall call;
    call.id = item.value("call_id", "");
    call.name = item.value("name", "");
    call.arguments = item.value("arguments", "{}");
    calls.push_back(std::move(call));
  }
  return calls;
}

}  // namespace keel::api
