// The built-in `extract` skill: its manifest, instructions, guard and deterministic fallback.
#include "skills/extract_skill.hpp"

#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/text/text_util.hpp"
#include "keel/core/extraction.hpp"

namespace keel {
namespace {

constexpr std::string_view kInputSchema = R"({
  "type": "object",
  "properties": {
    "text": {"type": "string", "description": "the text to extract from"},
    "target": {"type": "string", "enum": ["email", "url", "date", "entity"], "description": "what to extract"}
  },
  "required": ["text", "target"],
  "additionalProperties": false
})";

// One key, the target, holding an array of strings; which key is checked by the guard.
constexpr std::string_view kOutputSchema = R"({
  "type": "object",
  "properties": {
    "email": {"type": "array", "items": {"type": "string"}},
    "url": {"type": "array", "items": {"type": "string"}},
    "date": {"type": "array", "items": {"type": "string"}},
    "entity": {"type": "array", "items": {"type": "string"}}
  },
  "additionalProperties": false,
  "minProperties": 1,
  "maxProperties": 1
})";

constexpr std::string_view kInstructions = R"(You extract values from a text.

The input is a JSON object: {"text": "...", "target": "email" | "url" | "date" | "entity"}.
Reply with only a JSON object whose one key is the target and whose value is an array of strings,
for example {"email": ["hello@agent.rs"]}.

- Copy each value verbatim from the text, character for character: do not correct, complete,
  shorten, reformat or translate it.
- Return only values that appear in the text; never invent or guess one. When the text has none,
  return an empty array, for example {"email": []}.
- Even a single value goes in an array.
- email: email addresses (name@example.com). url: web addresses starting with http://, https://,
  ftp:// or www. (without sentence punctuation after them). date: calendar dates such as
  "March 3, 2024", "3 March 2024", "2024-03-04" or "03/04/2024". entity: names of people, places,
  organisations and products.

Every value is checked against the text: a value that is not in it, or is not a valid email
address, URL, date or name, is rejected.)";

struct ExtractInput {
  std::string_view text;
  ExtractionTarget target = ExtractionTarget::kEmail;
};

// The input's text and target; `input` must outlive the result.
Result<ExtractInput> read_input(const nlohmann::json& input) {
  if (!input.is_object() || !input.contains("text") || !input["text"].is_string() || !input.contains("target") ||
      !input["target"].is_string()) {
    std::string msg =
        "extract input must be {\"text\": \"...\", \"target\": \"email\" | \"url\" | \"date\" | \"entity\"}; got ";
    msg.append(detail::shorten(input.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), 200));
    return Status::InvalidArgument(std::move(msg));
  }
  ExtractInput in;
  in.text = input["text"].get_ref<const std::string&>();
  KEEL_ASSIGN_OR_RETURN(in.target, parse_extraction_target(input["target"].get_ref<const std::string&>()));
  return in;
}

Status check_output(const nlohmann::json& output, const nlohmann::json& input) {
  try {
    KEEL_ASSIGN_OR_RETURN(ExtractInput in, read_input(input));
    return check_extraction(output, in.target, in.text);
  } catch (const std::exception& e) {
    std::string msg = "extract check failed: ";
    msg.append(e.what());
    return Status::Internal(std::move(msg));
  }
}

Result<nlohmann::json> extract_without_model(const nlohmann::json& input) {
  try {
    KEEL_ASSIGN_OR_RETURN(ExtractInput in, read_input(input));
    KEEL_ASSIGN_OR_RETURN(std::vector<std::string> values, find_extraction_candidates(in.target, in.text));
    nlohmann::json out = nlohmann::json::object();
    out[std::string(extraction_target_name(in.target))] = std::move(values);
    return out;
  } catch (const std::exception& e) {
    std::string msg = "extract heuristic failed: ";
    msg.append(e.what());
    return Status::Internal(std::move(msg));
  }
}

}  // namespace

ExecutableSkill make_extract_skill() {
  ExecutableSkill skill;
  SkillManifest& m = skill.manifest;
  m.id = "extract";
  m.version = "1.0.0";
  m.description =
      "Extracts email addresses, URLs, dates or named entities from a text, each copied verbatim and checked "
      "against the text";
  m.triggers = {"extract"};
  m.input_schema = std::string(kInputSchema);
  m.output_schema = std::string(kOutputSchema);
  m.approval_mode = SkillApprovalMode::kAdvisory;
  m.timeout_ms = 60000;
  m.max_tokens = 1024;
  skill.instructions = std::string(kInstructions);
  skill.check = check_output;
  skill.heuristic = extract_without_model;
  return skill;
}

}  // namespace keel
