#include "skills/skill_prompt.hpp"

#include <string>

namespace keel::detail {
namespace {

std::string pretty(const nlohmann::json& v) {
  return v.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::vector<Message> skill_messages(const CompiledSkill& skill, const nlohmann::json& input,
                                    const nlohmann::json& provided, std::string_view knowledge) {
  const SkillManifest& m = skill.manifest();
  std::string system = "You carry out the skill \"";
  system.append(m.id).append("\"");
  if (!m.description.empty()) system.append(": ").append(m.description);
  system.append("\n\n");
  if (!skill.skill.instructions.empty()) {
    system.append(skill.skill.instructions);
    if (system.back() != '\n') system.push_back('\n');
    system.push_back('\n');
  }
  if (!knowledge.empty()) {
    system.append("## Domain knowledge\n\n").append(knowledge);
    if (system.back() != '\n') system.push_back('\n');
    system.push_back('\n');
  }
  system.append(
      "## Output\n\nReply with only one JSON value that matches this JSON Schema: no other text, no "
      "explanation.\n\n");
  system.append(pretty(skill.output_schema->json())).append("\n");

  std::string user = "## Input\n\n";
  user.append(pretty(input)).append("\n");
  if (provided.is_object() && !provided.empty()) {
    user.append("\n## Provided by the skills this one depends on\n\n").append(pretty(provided)).append("\n");
  }
  return {Message::system(std::move(system)), Message::user(std::move(user))};
}

void append_retry(std::vector<Message>& messages, std::string_view rejected_reply, std::string_view error) {
  messages.push_back(Message::assistant(std::string(rejected_reply)));
  std::string user = "Your reply was not accepted: ";
  user.append(error);
  user.append("\nReply again with only one JSON value that matches the schema.");
  messages.push_back(Message::user(std::move(user)));
}

}  // namespace keel::detail
