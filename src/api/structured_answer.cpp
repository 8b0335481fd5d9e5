#include "api/structured_answer.hpp"

#include <nlohmann/json.hpp>

#include "core/text/text_util.hpp"
#include "tools/schema_validator.hpp"

namespace keel::api {
namespace {

// The JSON inside an answer: the whole trimmed text, or the body of one ``` fence around it.
std::string_view json_text(std::string_view answer) {
  std::string_view t = detail::trim(answer);
  if (t.size() >= 6 && t.substr(0, 3) == "```" && t.substr(t.size() - 3) == "```") {
    t = t.substr(3, t.size() - 6);
    size_t line = t.find('\n');
    if (line != std::string_view::npos && detail::trim(t.substr(0, line)).find_first_of("{[\"") == std::string_view::npos) {
      t = t.substr(line + 1);  // the fence's language tag ("json")
    }
    t = detail::trim(t);
  }
  return t;
}

}  // namespace

Result<std::shared_ptr<StructuredAnswer>> StructuredAnswer::make(const AnswerFormat& format) {
  std::shared_ptr<StructuredAnswer> s(new StructuredAnswer(format));
  if (format.kind == AnswerFormat::Kind::kJsonSchema) {
    Result<std::shared_ptr<const detail::CompiledSchema>> compiled = detail::CompiledSchema::compile(format.schema);
    if (!compiled.ok()) {
      return Status::InvalidArgument("the response format's schema cannot be used: " + compiled.status().message());
    }
    s->schema_ = std::move(compiled).value();
    s->instruction_ =
        "When you give your final answer, write only one JSON value that matches this JSON Schema, with no other "
        "text before or after it:\n" + format.schema;
  } else if (format.kind == AnswerFormat::Kind::kJsonObject) {
    s->instruction_ = "When you give your final answer, write only one JSON object, with no other text before or after it.";
  }
  return s;
}

void StructuredAnswer::on_process_prompts(RunContext&, ModelRequest& request) {
  if (instruction_.empty()) return;
  request.appended.push_back(Message::user(instruction_));
  request.response_schema = format_.kind == AnswerFormat::Kind::kJsonSchema ? format_.schema : R"({"type":"object"})";
}

Result<std::string> StructuredAnswer::check(const std::string& answer) const {
  nlohmann::json value = nlohmann::json::parse(json_text(answer), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return Status::InvalidArgument("the answer is not JSON");
  if (format_.kind == AnswerFormat::Kind::kJsonObject && !value.is_object()) {
    return Status::InvalidArgument("the answer is JSON but not an object");
  }
  if (schema_) {
    Status valid = schema_->validate(value, format_.name.empty() ? "the answer" : format_.name);
    if (!valid.ok()) return valid;
  }
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void StructuredAnswer::on_response_complete(RunContext&, const std::string& answer, ResponseActions& actions) {
  if (instruction_.empty()) {
    verdict_ = answer;
    return;
  }
  verdict_ = check(answer);
  if (verdict_.ok() || corrected_ || actions.another_round) return;
  corrected_ = true;
  actions.another_round = true;
  actions.message = "Your answer could not be used: " + verdict_.status().message() +
                    ". Reply again with only the JSON value, matching the required format exactly.";
}

Result<std::string> StructuredAnswer::answer(const RunOutcome& outcome) const {
  if (instruction_.empty()) return outcome.answer;
  if (!verdict_.ok()) {
    return Status::InvalidArgument("the model's answer did not match the requested response format" +
                                   std::string(corrected_ ? ", also after one corrective round: " : ": ") +
                                   verdict_.status().message());
  }
  return verdict_;
}

}  // namespace keel::api
