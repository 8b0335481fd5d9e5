// Private to the llm layer: the JSON form of a cassette's exchanges (keel/cassette.hpp), shared by
// the recorder and the replayer, and the comparison that names the first difference.
//
// Thread-safety: free functions over values.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "keel/llm_client.hpp"

namespace keel::detail {

// The normalized request: messages, offered tools (name, parameters), sampling, stream flag.
nlohmann::json cassette_request_json(const ModelRequest& request, bool stream);

nlohmann::json cassette_reply_json(const ModelReply& reply);
nlohmann::json cassette_status_json(const Status& status);

// Parse back; kInvalidArgument with `where` (e.g. "c.jsonl:3") when a field has the wrong shape.
Result<ModelReply> cassette_reply_from_json(const nlohmann::json& j, const std::string& where);
// The recorded error goes into `out`; the returned Status is about the JSON itself.
Status cassette_status_from_json(const nlohmann::json& j, const std::string& where, Status& out);

// The first difference of `got` from `recorded` as "PATH: recorded X, got Y" (PATH like
// messages[4].content, values as compact JSON, long ones cut); nullopt when equal.
std::optional<std::string> cassette_first_difference(const nlohmann::json& recorded, const nlohmann::json& got);

}  // namespace keel::detail
