#include "cli/session_json.hpp"

#include <algorithm>

#include "cli/store_output.hpp"

namespace keel::cli {
namespace {

using json = nlohmann::ordered_json;  // keys in the order written: ids first

// dump() that never throws: stored text may hold invalid UTF-8 (a tool's raw output).
std::string safe_dump(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

// A backtick fence longer than any backtick run inside `body`, so the block cannot end early.
std::string fence_for(std::string_view body) {
  size_t longest = 0, run = 0;
  for (char c : body) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<size_t>(3, longest + 1), '`');
}

void fenced(std::string& out, std::string_view body, std::string_view lang) {
  const std::string fence = fence_for(body);
  out += fence;
  out += lang;
  out += "\n";
  out += body;
  if (body.empty() || body.back() != '\n') out += "\n";
  out += fence + "\n\n";
}

// Pretty JSON when `text` parses, else nullopt.
std::optional<std::string> pretty_json(std::string_view text) {
  json parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded()) return std::nullopt;
  return safe_dump(parsed, 2);
}

std::string metadata_value(const Message& m, const std::string& key) {
  auto it = m.metadata.find(key);
  return it == m.metadata.end() ? std::string() : it->second;
}

}  // namespace


json session_document(const SessionRecord& session, const std::vector<RunWithTools>& runs,
                      const std::vector<StoredMessage>& messages) {
  json doc = {{"session", session_to_json(session)}, {"runs", json::array()}, {"messages", json::array()}};
  for (const RunWithTools& r : runs) {
    json run = run_to_json(r.run);
    run["tool_runs"] = json::array();
    for (const ToolRunRecord& t : r.tool_runs) run["tool_runs"].push_back(tool_run_to_json(t));
    doc["runs"].push_back(std::move(run));
  }
  for (const StoredMessage& m : messages) doc["messages"].push_back(message_to_json(m));
  return doc;
}

std::string session_markdown(const SessionRecord& session, const std::vector<RunWithTools>& runs,
                             const std::vector<StoredMessage>& messages) {
  std::string out = "# " + (session.title.empty() ? "Session " + session.id : one_line(session.title, 200)) + "\n\n";
  out += "- Session: `" + session.id + "`\n";
  if (!session.workspace.empty()) out += "- Workspace: `" + session.workspace + "`\n";
  if (!session.model.empty()) out += "- Model: `" + session.model + "`\n";
  if (!session.parent_id.empty()) out += "- Forked from: `" + session.parent_id + "`\n";
  out += "- Created: " + local_time(session.created_ms) + ", updated: " + local_time(session.updated_ms) + "\n";
  out += "- Messages: " + std::to_string(session.message_count) + "\n";
  for (const RunWithTools& r : runs) {
    out += "- Run `" + r.run.id + "`: " + std::string(run_state_name(r.run.state)) + ", " +
           std::to_string(r.run.rounds) + " rounds, " + std::to_string(r.run.usage.prompt_tokens) + "+" +
           std::to_string(r.run.usage.completion_tokens) + " tokens, " + std::to_string(r.tool_runs.size()) +
           " tool runs";
    if (!r.run.error.empty()) out += " — error: " + first_line(r.run.error, 200);
    out += "\n";
  }
  out += "\n";

  for (const StoredMessage& sm : messages) {
    const Message& m = sm.message;
    switch (m.role) {
      case Role::kSystem:
        out += "## System\n\n";
        fenced(out, m.content, "");
        break;
      case Role::kUser:
        out += "## User\n\n" + m.content + "\n\n";
        break;
      case Role::kAssistant:
        out += "## Assistant\n\n";
        if (!m.reasoning.empty()) {
          out += "<details><summary>Reasoning</summary>\n\n";
          fenced(out, m.reasoning, "");
          out += "</details>\n\n";
        }
        if (!m.content.empty()) out += m.content + "\n\n";
        for (const ToolCall& c : m.tool_calls) {
          out += "### Tool call: " + one_line(c.name, 100) + " (`" + one_line(c.id, 100) + "`)\n\n";
          std::optional<std::string> pretty = pretty_json(c.arguments);
          fenced(out, pretty ? *pretty : c.arguments, pretty ? "json" : "");
        }
        break;
      case Role::kTool: {
        const std::string status = metadata_value(m, "status");
        out += "### Tool result: " + one_line(m.name, 100) + " (" + (status.empty() ? "ok" : status) + ")\n\n";
        std::optional<std::string> pretty = pretty_json(m.content);
        const bool structured = pretty && !m.content.empty() && (m.content[0] == '{' || m.content[0] == '[');
        fenced(out, structured ? *pretty : m.content, structured ? "json" : "");
        break;
      }
    }
  }
  return out;
}

}  // namespace keel::cli
