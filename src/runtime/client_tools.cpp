#include "runtime/client_tools.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "keel/tool_registry.hpp"

namespace keel::detail {

Status check_client_tools(std::span<const ToolSpec> client, std::span<const ToolSpec> own) {
  std::set<std::string> seen;
  for (const ToolSpec& t : client) {
    if (Status named = check_tool_name(t.name); !named.ok()) {
      return Status::InvalidArgument("client tool: " + named.message());
    }
    if (!seen.insert(t.name).second) {
      return Status::InvalidArgument("client tool '" + t.name + "' is given twice; tool names must be unique");
    }
    if (std::any_of(own.begin(), own.end(), [&](const ToolSpec& o) { return o.name == t.name; })) {
      return Status::InvalidArgument("client tool '" + t.name +
                                     "' has the name of one of the agent's own tools; rename it on the client");
    }
    nlohmann::json schema = nlohmann::json::parse(t.parameters_schema, nullptr, /*allow_exceptions=*/false);
    if (!schema.is_object()) {
      return Status::InvalidArgument("client tool '" + t.name + "': its parameters must be a JSON Schema object");
    }
  }
  return Status::Ok();
}

Status check_continuation_results(std::span<const Message> added) {
  if (added.empty()) {
    return Status::InvalidArgument(
        "there is no task and no tool result to continue from; send a user message, or the results of the calls "
        "the last response handed over");
  }
  for (const Message& m : added) {
    if (m.role != Role::kTool) {
      return Status::InvalidArgument(std::string("without a task only tool results can continue a conversation; got a ") +
                                     std::string(role_name(m.role)) + " message");
    }
  }
  return Status::Ok();
}

Status check_continuation(std::span<const Message> earlier, std::span<const Message> added) {
  std::vector<const Message*> all;
  all.reserve(earlier.size() + added.size());
  for (const Message& m : earlier) all.push_back(&m);
  for (const Message& m : added) all.push_back(&m);
  size_t last_call = all.size();
  for (size_t i = all.size(); i-- > 0;) {
    if (all[i]->role == Role::kAssistant && !all[i]->tool_calls.empty()) {
      last_call = i;
      break;
    }
    if (all[i]->role != Role::kTool) break;
  }
  if (last_call == all.size() || last_call + 1 == all.size()) {
    return Status::InvalidArgument(
        "the conversation does not end with tool results answering the last assistant message's tool calls, and "
        "there is no new user message; send the results (or a user message) to continue");
  }
  std::set<std::string> answered;
  for (size_t i = last_call + 1; i < all.size(); ++i) answered.insert(all[i]->tool_call_id);
  for (const ToolCall& c : all[last_call]->tool_calls) {
    if (answered.count(c.id) == 0) {
      return Status::InvalidArgument("the tool call '" + c.id + "' (" + c.name +
                                     ") has no result; send one tool result per call before continuing");
    }
  }
  return Status::Ok();
}

}  // namespace keel::detail
