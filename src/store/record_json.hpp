// Stored records as JSON objects, every field under its C++ name and times as integer ms since
// the epoch: `keel sessions show --json`, `keel sessions export` and keel serve's API share them.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <nlohmann/json.hpp>

#include "keel/store/records.hpp"

namespace keel::detail {

nlohmann::ordered_json session_to_json(const SessionRecord& session);
// "ended_ms" and "checkpoint" are null when unset.
nlohmann::ordered_json run_to_json(const RunRecord& run);
nlohmann::ordered_json tool_run_to_json(const ToolRunRecord& tool_run);
// tool_calls keep their arguments as the model wrote them (a string, possibly not valid JSON).
nlohmann::ordered_json message_to_json(const StoredMessage& message);

}  // namespace keel::detail
