#include "keel/core/deferred_tools.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace keel {

bool has_deferred_tools(std::span<const ToolSpec> tools) {
  return std::any_of(tools.begin(), tools.end(), [](const ToolSpec& t) { return t.deferred; });
}

namespace {

// The names an ok tool_search result lists under "matches".
void add_matches(const std::string& content, std::set<std::string, std::less<>>& loaded) {
  const nlohmann::json result = nlohmann::json::parse(content, nullptr, false);
  if (!result.is_object()) return;
  const auto matches = result.find("matches");
  if (matches == result.end() || !matches->is_array()) return;
  for (const nlohmann::json& m : *matches) {
    if (m.is_object() && m.contains("name") && m["name"].is_string()) loaded.insert(m["name"].get<std::string>());
  }
}

}  // namespace

std::vector<ToolSpec> offered_tools(std::span<const ToolSpec> tools, std::span<const Message> history) {
  if (!has_deferred_tools(tools)) return {tools.begin(), tools.end()};
  std::set<std::string, std::less<>> loaded;
  for (const Message& m : history) {
    if (m.role == Role::kAssistant) {
      for (const ToolCall& c : m.tool_calls) loaded.insert(c.name);
    } else if (m.role == Role::kTool && m.name == kToolSearchName) {
      auto status = m.metadata.find("status");
      if (status == m.metadata.end() || status->second == tool_status_name(ToolStatus::kOk)) add_matches(m.content, loaded);
    }
  }
  std::vector<ToolSpec> out;
  out.reserve(tools.size());
  for (const ToolSpec& t : tools) {
    if (!t.deferred || loaded.count(t.name) > 0) out.push_back(t);
  }
  return out;
}

}  // namespace keel
