#include "api/answer_format.hpp"

#include <nlohmann/json.hpp>

#include "core/text/text_util.hpp"

namespace keel::api {
namespace {

OpenAiError bad(std::string param, std::string code, std::string message) {
  OpenAiError e;
  e.param = std::move(param);
  e.code = std::move(code);
  e.message = std::move(message);
  return e;
}

}  // namespace

std::variant<AnswerFormat, OpenAiError> read_answer_format(const nlohmann::json& value, std::string_view param,
                                                           bool flat) {
  AnswerFormat out;
  if (value.is_null()) return out;
  const std::string p(param);
  if (!value.is_object() || !value.contains("type") || !value["type"].is_string()) {
    return bad(p, "invalid_type",
               detail::concat({"'", p, "' must be an object with a \"type\": text, json_object or json_schema"}));
  }
  const std::string type = value["type"].get<std::string>();
  if (type == "text") return out;
  if (type == "json_object") {
    out.kind = AnswerFormat::Kind::kJsonObject;
    return out;
  }
  if (type != "json_schema") {
    return bad(p + ".type", "unsupported_value",
               detail::concat({"'", p, ".type' is '", type, "'; use text, json_object or json_schema"}));
  }
  const nlohmann::json* spec = &value;
  std::string where = p;
  if (!flat) {
    auto inner = value.find("json_schema");
    if (inner == value.end() || !inner->is_object()) {
      return bad(p + ".json_schema", "missing_required_parameter",
                 detail::concat({"'", p, "' of type json_schema needs a \"json_schema\" object with \"name\" and \"schema\""}));
    }
    spec = &*inner;
    where = p + ".json_schema";
  }
  auto name = spec->find("name");
  if (name != spec->end() && name->is_string()) out.name = name->get<std::string>();
  auto schema = spec->find("schema");
  if (schema == spec->end() || !schema->is_object()) {
    return bad(where + ".schema", "missing_required_parameter",
               detail::concat({"'", where, "' needs a \"schema\": the JSON Schema object the answer must match"}));
  }
  out.schema = schema->dump();
  auto strict = spec->find("strict");
  out.strict = strict != spec->end() && strict->is_boolean() && strict->get<bool>();
  out.kind = AnswerFormat::Kind::kJsonSchema;
  return out;
}

}  // namespace keel::api
