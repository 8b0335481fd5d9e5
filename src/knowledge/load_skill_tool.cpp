// load_skill — the second step of progressive disclosure: the model asks for a skill's body (or
// one of its files) by name. Paths are checked lexically first (relative, no "..") and then after
// resolving symbolic links, so a link planted in a skill's folder cannot lead out of it.
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "keel/knowledge_skills.hpp"
#include "knowledge/knowledge_skill_paths.hpp"

namespace keel {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSchema = R"({
  "type": "object",
  "properties": {
    "name": {"type": "string", "description": "the skill's name, as the Skills section lists it"},
    "file": {"type": "string", "description": "a file of the skill, relative to its folder (e.g. \"references/fees.md\"); omit it for the skill's instructions"}
  },
  "required": ["name"],
  "additionalProperties": false
})";

std::string body_text(const KnowledgeSkill& skill) {
  std::string out = "# Skill: ";
  out += skill.name;
  out += "\n";
  out += skill.body;
  if (!skill.resources.empty()) {
    out += "\n\nFiles of this skill (read one with load_skill {\"name\": \"";
    out += skill.name;
    out += "\", \"file\": PATH}):";
    for (const std::string& r : skill.resources) {
      out += "\n- ";
      out += r;
    }
  }
  return out;
}

std::string enabled_names(const std::vector<KnowledgeSkill>& skills) {
  std::string out;
  for (const KnowledgeSkill& s : skills) {
    if (!s.enabled) continue;
    if (!out.empty()) out += ", ";
    out += s.name;
  }
  return out.empty() ? std::string("(none)") : out;
}

Result<std::string> load(const std::vector<KnowledgeSkill>& skills, const nlohmann::json& args) {
  const std::string name = args.value("name", std::string());
  const std::string file = args.value("file", std::string());
  for (const KnowledgeSkill& s : skills) {
    if (s.name != name) continue;
    if (!s.enabled) {
      return Status::PermissionDenied("skill '" + name + "' is disabled in this workspace; use another skill (" +
                                      enabled_names(skills) + ") or go on without it");
    }
    return read_knowledge_skill_text(s, file);
  }
  return Status::NotFound("no skill named '" + name + "'; available skills: " + enabled_names(skills));
}

}  // namespace

Result<std::string> read_knowledge_skill_text(const KnowledgeSkill& skill, std::string_view file) {
  if (file.empty()) return body_text(skill);
  const fs::path rel{std::string(file)};
  if (std::string problem = detail::relative_path_problem(rel); !problem.empty()) {
    return Status::InvalidArgument("file '" + std::string(file) + "' " + problem +
                                   "; give a path inside the skill's folder, e.g. one listed under \"Files of this "
                                   "skill\"");
  }
  std::error_code ec;
  const fs::path root = fs::canonical(skill.folder, ec);
  if (ec) return Status::NotFound("the folder of skill '" + skill.name + "' (" + skill.folder + ") is gone");
  const fs::path path = fs::canonical(root / rel, ec);
  if (ec) {
    return Status::NotFound("skill '" + skill.name + "' has no file '" + std::string(file) + "'" +
                            (skill.resources.empty() ? std::string() : "; its files are listed with its instructions"));
  }
  if (!detail::path_inside(path, root)) {
    return Status::PermissionDenied("file '" + std::string(file) + "' leads outside the folder of skill '" +
                                    skill.name + "' (a symbolic link); only files inside it can be read");
  }
  if (!fs::is_regular_file(path, ec)) {
    return Status::InvalidArgument("'" + std::string(file) + "' of skill '" + skill.name + "' is not a regular file");
  }
  const uintmax_t size = fs::file_size(path, ec);
  if (ec || size > kMaxSkillFileBytes) {
    return Status::InvalidArgument("'" + std::string(file) + "' of skill '" + skill.name + "' is larger than " +
                                   std::to_string(kMaxSkillFileBytes / 1024) + " KiB; it cannot be loaded");
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) return Status::InvalidArgument("'" + std::string(file) + "' cannot be read");
  std::string out = text.str();
  if (out.find('\0') != std::string::npos) {
    return Status::InvalidArgument("'" + std::string(file) + "' of skill '" + skill.name +
                                   "' is a binary file; only text files can be loaded");
  }
  return out;
}

Status register_load_skill_tool(ToolRegistry& registry, std::vector<KnowledgeSkill> skills) {
  ToolTraits traits;
  traits.read_only = true;
  traits.risk = Risk::kLow;
  traits.timeout_ms = 10000;
  ToolSpec spec = make_tool_spec(
      "load_skill",
      "Read a knowledge skill listed in the Skills section: its instructions (name), or one of its files (name and "
      "file, a path inside the skill's folder).",
      kSchema, traits);
  auto shared = std::make_shared<const std::vector<KnowledgeSkill>>(std::move(skills));
  return registry.add(make_tool(
      std::move(spec), [shared](const nlohmann::json& args, const ToolContext&) { return load(*shared, args); }));
}

}  // namespace keel
