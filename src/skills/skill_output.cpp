#include "skills/skill_output.hpp"

#include "core/parsing/json/json_repair.hpp"
#include "core/text/text_util.hpp"

namespace keel::detail {
namespace {

std::string_view trimmed(std::string_view s) {
  const char* ws = " \t\r\n";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

// The body of the first ``` fence in `text`, when the reply is fenced or is prose around a fence;
// nullopt when there is no fence to take (a reply that starts as JSON is left alone).
std::optional<std::string_view> fenced_body(std::string_view text) {
  size_t open = text.rfind("```", 0) == 0 ? 0 : text.find("\n```");
  if (open == std::string_view::npos) return std::nullopt;
  if (open != 0 && (text.front() == '{' || text.front() == '[')) return std::nullopt;
  if (open != 0) open += 1;  // past the newline
  size_t body = text.find('\n', open);
  if (body == std::string_view::npos) return std::nullopt;  // "```json" and nothing else
  body += 1;
  size_t close = text.find("```", body);
  return text.substr(body, close == std::string_view::npos ? std::string_view::npos : close - body);
}

}  // namespace

Result<ParsedReply> parse_skill_reply(std::string_view text) {
  ParsedReply out;
  std::string_view body = trimmed(text);
  if (std::optional<std::string_view> fenced = fenced_body(body)) {
    out.repairs.push_back(body.rfind("```", 0) == 0 ? "removed the ``` fence around the JSON"
                                                    : "took the JSON from a ``` fence and dropped the text around it");
    body = trimmed(*fenced);
  }
  if (body.empty()) return Status::InvalidArgument("the reply is empty; it must be one JSON value");
  LenientJson parsed = parse_json_lenient(body);
  if (!parsed.value) return Status::InvalidArgument(concat({"the reply is not JSON: ", parsed.error}));
  out.value = std::move(*parsed.value);
  for (std::string& r : parsed.repairs) out.repairs.push_back(std::move(r));
  return out;
}

Status validate_skill_output(const CompiledSkill& skill, const nlohmann::json& output, const nlohmann::json& input) {
  const std::string label = concat({"skill ", skill.id(), " output"});
  Status s = skill.output_schema->validate(output, label);
  if (!s.ok()) {
    // The validator words its message for tool arguments; keep only the list of failures.
    std::string details = s.message();
    const std::string prefix = concat({"invalid arguments for ", label, ": "});
    if (details.rfind(prefix, 0) == 0) details.erase(0, prefix.size());
    return Status::InvalidArgument(concat({"the output does not match the output schema: ", details}));
  }
  for (const std::string& name : skill.manifest().provides) {
    if (!output.is_object() || !output.contains(name)) {
      return Status::InvalidArgument(concat({"the output has no member '", name, "', which the skill provides"}));
    }
  }
  if (skill.skill.check) {
    Status checked;
    try {
      checked = skill.skill.check(output, input);
    } catch (const std::exception& e) {
      return Status::Internal(concat({"the check of skill ", skill.id(), " failed: ", e.what()}));
    }
    if (!checked.ok()) return Status(checked.code(), checked.message());
  }
  return Status::Ok();
}

}  // namespace keel::detail
