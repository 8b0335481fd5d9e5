// api/request_fields.hpp — what the /v1 request readers share to name a field and say what was
// wrong with it: "messages[2].content", "got a number", and the OpenAI-shaped 400 built from them.
//
//   return wrong_type(indexed("input", 3), "an object", value);   // 400 invalid_type, param named
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "api/openai_error.hpp"

namespace keel::api::fields {

// "base[index]".
std::string indexed(std::string_view base, size_t index);
// "base.field".
std::string dotted(std::string_view base, std::string_view field);
// JSON's name for a value's type, for messages: "null", "a boolean", "a number", "a string",
// "an array", "an object".
std::string kind_of(const nlohmann::json& value);
// A 400 invalid_request_error naming `param`, with a stable `code`.
OpenAiError bad(std::string param, std::string code, std::string message);
// A 400 invalid_type: "'param' must be WANTED; got KIND".
OpenAiError wrong_type(const std::string& param, std::string_view wanted, const nlohmann::json& got);

}  // namespace keel::api::fields
