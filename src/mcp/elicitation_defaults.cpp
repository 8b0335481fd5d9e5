#include "mcp/elicitation_defaults.hpp"

namespace keel::mcp {

using nlohmann::json;

json answer_with_defaults(const json& params) {
  const json decline = {{"action", "decline"}};
  if (!params.is_object()) return decline;
  auto schema = params.find("requestedSchema");
  if (schema == params.end() || !schema->is_object()) return decline;
  auto properties = schema->find("properties");
  if (properties == schema->end() || !properties->is_object()) return decline;
  json content = json::object();
  for (auto it = properties->begin(); it != properties->end(); ++it) {
    if (it->is_object() && it->contains("default")) content[it.key()] = (*it)["default"];
  }
  if (auto required = schema->find("required"); required != schema->end() && required->is_array()) {
    for (const auto& name : *required) {
      if (!name.is_string() || !content.contains(name.get<std::string>())) return decline;
    }
  }
  return {{"action", "accept"}, {"content", std::move(content)}};
}

}  // namespace keel::mcp
