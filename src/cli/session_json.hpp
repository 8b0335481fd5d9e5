// Stored sessions as JSON and Markdown, for `keel sessions show --json` and `keel sessions export`.
// Every field of the records is kept, under its C++ name; times stay integer ms since the epoch.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keel/store/records.hpp"

namespace keel::cli {

nlohmann::ordered_json session_to_json(const SessionRecord& session);
// "ended_ms" and "checkpoint" are null when unset.
nlohmann::ordered_json run_to_json(const RunRecord& run);
nlohmann::ordered_json tool_run_to_json(const ToolRunRecord& tool_run);
// tool_calls keep their arguments as the model wrote them (a string, possibly not valid JSON).
nlohmann::ordered_json message_to_json(const StoredMessage& message);

// One run and the tool executions recorded under it.
struct RunWithTools {
  RunRecord run;
  std::vector<ToolRunRecord> tool_runs;
};

// The whole session as one document: {"session","runs":[{...,"tool_runs":[...]}],"messages"}.
nlohmann::ordered_json session_document(const SessionRecord& session, const std::vector<RunWithTools>& runs,
                                        const std::vector<StoredMessage>& messages);

// A readable transcript: "# title", metadata lines, then "## User" / "## Assistant" /
// "### Tool call" / "### Tool result" sections, with JSON and tool output in fenced blocks.
std::string session_markdown(const SessionRecord& session, const std::vector<RunWithTools>& runs,
                             const std::vector<StoredMessage>& messages);

}  // namespace keel::cli
