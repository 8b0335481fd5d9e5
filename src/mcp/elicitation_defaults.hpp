// mcp/elicitation_defaults.hpp — keel's answer to an elicitation/create request when nobody can be
// asked: accept with the schema's defaults when every requested field has one, decline otherwise
// (never invent a value).
#pragma once

#include <nlohmann/json.hpp>

namespace keel::mcp {

// The elicitation result for `params` ({message, requestedSchema}): {"action": "accept",
// "content": {field: default...}} or {"action": "decline"}.
nlohmann::json answer_with_defaults(const nlohmann::json& params);

}  // namespace keel::mcp
