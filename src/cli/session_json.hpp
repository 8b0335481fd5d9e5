// Stored sessions as JSON and Markdown, for `keel sessions show --json` and `keel sessions export`.
// Every field of the records is kept, under its C++ name; times stay integer ms since the epoch.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keel/store/records.hpp"
#include "store/record_json.hpp"

namespace keel::cli {

using detail::message_to_json;
using detail::run_to_json;
using detail::session_to_json;
using detail::tool_run_to_json;

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
