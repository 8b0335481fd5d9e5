#include "store/message_codec.hpp"

#include <nlohmann/json.hpp>

namespace keel::detail {
namespace {

using nlohmann::json;

std::string dump(const json& value) {
  // replace: invalid UTF-8 becomes U+FFFD instead of throwing.
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<json> parse(std::string_view text, std::string_view column) {
  json value = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    return Status::FailedPrecondition("stored " + std::string(column) + " is not valid JSON");
  }
  return value;
}

bool string_field(const json& object, const char* key, std::string& out) {
  auto it = object.find(key);
  if (it == object.end()) return true;  // absent: empty
  if (!it->is_string()) return false;
  out = it->get<std::string>();
  return true;
}

}  // namespace

std::string encode_tool_calls(const std::vector<ToolCall>& calls) {
  if (calls.empty()) return {};
  json array = json::array();
  for (const ToolCall& call : calls) {
    array.push_back({{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}});
  }
  return dump(array);
}

Result<std::vector<ToolCall>> decode_tool_calls(std::string_view text) {
  std::vector<ToolCall> calls;
  if (text.empty()) return calls;
  KEEL_ASSIGN_OR_RETURN(json array, parse(text, "tool_calls"));
  if (!array.is_array()) return Status::FailedPrecondition("stored tool_calls is not a JSON array");
  for (const json& item : array) {
    ToolCall call;
    if (!item.is_object() || !string_field(item, "id", call.id) || !string_field(item, "name", call.name) ||
        !string_field(item, "arguments", call.arguments)) {
      return Status::FailedPrecondition("stored tool_calls holds an entry that is not {id, name, arguments}");
    }
    calls.push_back(std::move(call));
  }
  return calls;
}

std::string encode_metadata(const std::map<std::string, std::string>& metadata) {
  if (metadata.empty()) return {};
  json object = json::object();
  for (const auto& [key, value] : metadata) object[key] = value;
  return dump(object);
}

Result<std::map<std::string, std::string>> decode_metadata(std::string_view text) {
  std::map<std::string, std::string> metadata;
  if (text.empty()) return metadata;
  KEEL_ASSIGN_OR_RETURN(json object, parse(text, "metadata"));
  if (!object.is_object()) return Status::FailedPrecondition("stored metadata is not a JSON object");
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (!it->is_string()) return Status::FailedPrecondition("stored metadata '" + it.key() + "' is not a string");
    metadata.emplace(it.key(), it->get<std::string>());
  }
  return metadata;
}

Result<Role> parse_role(std::string_view name) {
  for (Role role : {Role::kSystem, Role::kUser, Role::kAssistant, Role::kTool}) {
    if (role_name(role) == name) return role;
  }
  return Status::FailedPrecondition("stored message role '" + std::string(name) + "' is unknown");
}

}  // namespace keel::detail
