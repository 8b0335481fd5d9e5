// api/answer_format.hpp — the shape a client asks a run's final answer to have: free text, any
// JSON object, or one JSON value matching a schema (Chat Completions' response_format, the
// Responses API's text.format), read from the request's JSON.
//
//   std::variant<AnswerFormat, OpenAiError> f = read_answer_format(body["response_format"], "response_format");
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <variant>

#include "api/openai_error.hpp"

namespace keel::api {

struct AnswerFormat {
  enum class Kind { kText, kJsonObject, kJsonSchema } kind = Kind::kText;
  std::string name;    // json_schema: the schema's name
  std::string schema;  // json_schema: the JSON Schema, as JSON text
  bool strict = false;
};

// Reads {"type":"text"|"json_object"} or {"type":"json_schema", "json_schema":{"name","schema",
// "strict"}} (Chat Completions), or, with `flat`, the Responses API's {"type":"json_schema",
// "name","schema","strict"}. Null or absent: free text. Errors name `param`.
std::variant<AnswerFormat, OpenAiError> read_answer_format(const nlohmann::json& value, std::string_view param, bool flat);

}  // namespace keel::api
