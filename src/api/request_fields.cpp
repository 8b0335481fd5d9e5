#include "api/request_fields.hpp"

#include <nlohmann/json.hpp>

#include "core/text/text_util.hpp"

namespace keel::api::fields {

std::string indexed(std::string_view base, size_t index) {
  return detail::concat({base, "[", std::to_string(index), "]"});
}

std::string dotted(std::string_view base, std::string_view field) { return detail::concat({base, ".", field}); }

std::string kind_of(const nlohmann::json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "an array";
  return "an object";
}

OpenAiError bad(std::string param, std::string code, std::string message) {
  OpenAiError e;
  e.status = 400;
  e.param = std::move(param);
  e.code = std::move(code);
  e.message = std::move(message);
  return e;
}

OpenAiError wrong_type(const std::string& param, std::string_view wanted, const nlohmann::json& got) {
  return bad(param, "invalid_type", detail::concat({"'", param, "' must be ", wanted, "; got ", kind_of(got)}));
}

}  // namespace keel::api::fields
