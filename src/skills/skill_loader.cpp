// Loading executable skills from skill folders (skill.json + SKILL.md) and merging them with the
// built-in ones; the whole set's graph is checked here so that a bad dependency fails at load time.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

#include "keel/core/skill_graph.hpp"
#include "keel/skill_runner.hpp"
#include "core/text/text_util.hpp"

namespace keel {
namespace {

namespace fs = std::filesystem;
using detail::concat;

constexpr std::uintmax_t kMaxFileBytes = 1 << 20;

Result<std::string> read_text(const fs::path& path) {
  std::error_code ec;
  std::uintmax_t size = fs::file_size(path, ec);
  if (ec) return Status::InvalidArgument(concat({path.string(), ": cannot be read (", ec.message(), ")"}));
  if (size > kMaxFileBytes) {
    return Status::InvalidArgument(concat({path.string(), ": is larger than 1 MiB; a skill file should be small"}));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument(concat({path.string(), ": cannot be opened"}));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// SKILL.md without its YAML frontmatter (a first line "---" up to the next line "---").
Result<std::string> instructions_of(std::string text, const std::string& file) {
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  auto first_line_end = text.find('\n');
  std::string_view first = std::string_view(text).substr(0, first_line_end);
  if (!first.empty() && first.back() == '\r') first.remove_suffix(1);
  if (first != "---") return text;
  size_t pos = first_line_end == std::string::npos ? text.size() : first_line_end + 1;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view line =
        std::string_view(text).substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line == "---") {
      size_t body = end == std::string::npos ? text.size() : end + 1;
      return text.substr(body);
    }
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return Status::InvalidArgument(
      concat({file, ": the frontmatter opened by '---' on line 1 is never closed by a '---' line"}));
}

Result<ExecutableSkill> load_folder(const fs::path& folder) {
  const fs::path manifest_path = folder / "skill.json";
  const fs::path md_path = folder / "SKILL.md";
  KEEL_ASSIGN_OR_RETURN(std::string manifest_text, read_text(manifest_path));
  ExecutableSkill skill;
  KEEL_ASSIGN_OR_RETURN(skill.manifest, parse_skill_manifest(manifest_text, manifest_path.string()));
  std::error_code ec;
  if (!fs::is_regular_file(md_path, ec)) {
    return Status::InvalidArgument(
        concat({folder.string(), ": has skill.json but no SKILL.md; write the skill's instructions there"}));
  }
  KEEL_ASSIGN_OR_RETURN(std::string md, read_text(md_path));
  KEEL_ASSIGN_OR_RETURN(skill.instructions, instructions_of(std::move(md), md_path.string()));
  skill.dir = folder.string();
  return skill;
}

// Sub-folders of `dir` holding a skill.json, sorted by name; none when `dir` does not exist.
std::vector<fs::path> skill_folders(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    if (it->is_directory(e2) && fs::is_regular_file(it->path() / "skill.json", e2)) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Result<std::vector<ExecutableSkill>> load_executable_skills(std::span<const std::string> dirs) {
  std::map<std::string, ExecutableSkill> by_id;
  for (const std::string& dir : dirs) {
    std::map<std::string, std::string> here;  // id -> manifest file, for duplicates within `dir`
    for (const fs::path& folder : skill_folders(dir)) {
      KEEL_ASSIGN_OR_RETURN(ExecutableSkill skill, load_folder(folder));
      const std::string file = (folder / "skill.json").string();
      auto [it, fresh] = here.emplace(skill.manifest.id, file);
      if (!fresh) {
        return Status::InvalidArgument(
            concat({it->second, " and ", file, " both define skill '", skill.manifest.id, "'; rename one of them"}));
      }
      by_id.emplace(skill.manifest.id, std::move(skill));  // an earlier folder's skill stays
    }
  }
  for (ExecutableSkill& b : builtin_executable_skills()) by_id.emplace(b.manifest.id, std::move(b));

  std::vector<ExecutableSkill> skills;
  std::vector<SkillNode> nodes;
  for (auto& [id, skill] : by_id) {
    for (const std::string& d : skill.manifest.depends) {
      if (by_id.count(d) == 0) {
        std::string where =
            skill.dir.empty() ? concat({"built-in skill '", id, "'"}) : (fs::path(skill.dir) / "skill.json").string();
        return Status::InvalidArgument(concat({where, ": key 'depends': '", d, "' is not a loaded skill"}));
      }
    }
    SkillNode n;
    n.id = id;
    n.depends = skill.manifest.depends;
    n.triggers = skill.manifest.triggers;
    nodes.push_back(std::move(n));
    skills.push_back(std::move(skill));
  }
  Result<SkillPlan> plan = plan_skill_graph(nodes);
  if (!plan.ok()) return Status::InvalidArgument(concat({plan.status().message(), "; remove one of these depends"}));
  return skills;
}

}  // namespace keel
