// api/responses_archive.hpp — where /v1/responses keeps the responses it stored, on top of keel's
// own records: a response is a keel run (its id is the run's, responses_reply.hpp), and the
// response object it answered with and its input items are kept as that run's host data
// (RunRecord::checkpoint, which keel's runtime leaves to its host) under the key "responses_api".
// Its conversation is the run's session, which previous_response_id continues.
//
//   ResponsesArchive archive(store);
//   KEEL_TRY(archive.save(run_id, response_json, input_items));
//   Result<std::optional<StoredResponse>> r = archive.find("resp_…");   // nullopt: none kept
//
// Thread-safety: as the Store (every method may be called from any thread).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "keel/result.hpp"
#include "keel/store/store.hpp"

namespace keel::api {

struct StoredResponse {
  RunRecord run;               // the run behind it (its session is the conversation)
  nlohmann::json response;     // the response object as answered
  nlohmann::json input_items;  // the request's input items, with their ids
};

class ResponsesArchive {
 public:
  explicit ResponsesArchive(Store& store) : store_(store) {}

  // The stored response `response_id`; nullopt when keel gave out no such id, its run is gone, or
  // it was not stored (store:false) or was deleted. Errors: the store's, other than NotFound.
  Result<std::optional<StoredResponse>> find(const std::string& response_id);
  // An output or input item of a stored response, by the id keel gave it (item_reference).
  std::optional<nlohmann::json> find_item(const std::string& item_id);
  // Keeps `response` and `input_items` with run `run_id` (replacing what was kept).
  Status save(const std::string& run_id, const nlohmann::json& response, const nlohmann::json& input_items);
  // Drops what was kept with run `run_id`; the run and its session stay (keel's own record).
  Status forget(const std::string& run_id);
  // The session a response continuing `previous` runs in: the previous run's own session when that
  // run is its latest; otherwise (a second branch from an earlier response) a fork of it holding
  // the messages up to the previous run's last one.
  Result<std::string> session_after(const RunRecord& previous);

 private:
  Store& store_;
};

// The client calls a stored response handed over (its function_call output items).
std::vector<ToolCall> client_calls_of(const nlohmann::json& response);

}  // namespace keel::api
