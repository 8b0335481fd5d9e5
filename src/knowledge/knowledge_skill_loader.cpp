// Discovery of knowledge skills on disk: the immediate subfolders of each skills folder, then the
// SKILL.md files their indexes link to. Every link is checked twice: lexically (relative, no
// "..", no scheme) and after resolving symbolic links (still inside the top-level skill's folder),
// so neither a crafted path nor a link planted in the folder reaches files elsewhere.
#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "keel/knowledge_skills.hpp"
#include "knowledge/knowledge_skill_paths.hpp"

namespace keel {
namespace {

namespace fs = std::filesystem;

constexpr int kResourceDepth = 3;

bool hidden(const fs::path& p) {
  const std::string name = p.filename().string();
  return !name.empty() && name.front() == '.';
}

bool has_skill_file(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "SKILL.md", ec);
}

std::vector<std::string> list_resources(const fs::path& folder) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    std::error_code sec;
    if (hidden(entry.path()) || entry.is_symlink(sec)) {
      if (entry.is_directory(sec) && !entry.is_symlink(sec)) it.disable_recursion_pending();
      continue;
    }
    if (entry.is_directory(sec)) {
      if (it.depth() + 1 >= kResourceDepth || has_skill_file(entry.path())) it.disable_recursion_pending();
      continue;
    }
    if (!entry.is_regular_file(sec)) continue;
    fs::path rel = entry.path().lexically_relative(folder);
    if (rel == "SKILL.md") continue;
    out.push_back(rel.generic_string());
    if (out.size() >= kMaxResourcesListed) break;
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Where a link of the index at `index_folder` leads, or why it is not followed ("" target and
// empty reason: not a local link, silently ignored).
struct LinkCheck {
  fs::path target;     // canonical SKILL.md
  std::string reason;  // a problem when set
};

LinkCheck check_link(const std::string& link, const fs::path& index_folder, const fs::path& boundary) {
  LinkCheck out;
  if (detail::is_url_link(link)) return out;  // a URL (or another scheme): never followed from disk
  const fs::path rel(link);
  if (std::string problem = detail::relative_path_problem(rel); !problem.empty()) {
    out.reason = problem + "; index links must be relative paths inside the skill's folder";
    return out;
  }
  std::error_code ec;
  fs::path resolved = fs::canonical(index_folder / rel, ec);
  if (ec) {
    out.reason = "does not lead to a readable file (" + ec.message() + ")";
    return out;
  }
  if (!detail::path_inside(resolved, boundary)) {
    out.reason = "leads outside the skill's folder (through a symbolic link) to " + resolved.string();
    return out;
  }
  if (!fs::is_regular_file(resolved, ec)) {
    out.reason = "is not a regular file";
    return out;
  }
  out.target = resolved;
  return out;
}

// One skills folder: its top-level skills by folder name, then what their indexes link to.
class DirLoader {
 public:
  DirLoader(const std::string& dir, KnowledgeSkillSet& set, std::set<std::string>& names)
      : dir_(dir), set_(set), names_(names) {}

  void load() {
    std::error_code ec;
    if (!fs::is_directory(dir_, ec)) return;  // folders that do not exist are fine
    std::vector<fs::path> folders;
    for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code sec;
      if (hidden(it->path()) || !it->is_directory(sec) || !has_skill_file(it->path())) continue;
      if (fs::exists(it->path() / "skill.json", sec)) continue;  // an executable skill (keel/executable_skill.hpp)
      folders.push_back(it->path());
    }
    if (ec) {
      set_.problems.push_back(dir_ + ": cannot list the skills folder: " + ec.message());
      return;
    }
    std::sort(folders.begin(), folders.end());
    struct Pending {
      fs::path file;      // canonical SKILL.md
      fs::path boundary;  // canonical folder of the top-level skill
      int depth;
      std::string index;
    };
    std::deque<Pending> queue;
    for (const fs::path& folder : folders) {
      fs::path canonical = fs::canonical(folder, ec);
      if (ec) continue;
      queue.push_back({canonical / "SKILL.md", canonical, 0, ""});
    }
    while (!queue.empty()) {
      Pending p = std::move(queue.front());
      queue.pop_front();
      if (!seen_.insert(p.file.string()).second) continue;
      if (seen_.size() > kMaxSkillsPerDir) {
        set_.problems.push_back(dir_ + ": more than " + std::to_string(kMaxSkillsPerDir) +
                                " skills; the rest are not loaded");
        return;
      }
      const KnowledgeSkill* skill = add(p.file, p.index);
      if (skill == nullptr || p.depth >= kMaxIndexDepth) continue;
      const fs::path folder = p.file.parent_path();
      for (const std::string& link : skill_index_links(skill->body)) {
        LinkCheck check = check_link(link, folder, p.boundary);
        if (!check.reason.empty()) {
          set_.problems.push_back(p.file.string() + ": the link to " + link + " is not followed: it " + check.reason);
          continue;
        }
        if (check.target.empty() || check.target == p.file) continue;
        queue.push_back({check.target, p.boundary, p.depth + 1, skill->name});
      }
    }
  }

 private:
  // Reads one SKILL.md; the loaded skill, or nullptr when it cannot be read or a skill of the
  // same name came first (a hidden index is not followed either: the skill that hides it wins).
  const KnowledgeSkill* add(const fs::path& file, const std::string& index) {
    std::vector<std::string> warnings;
    Result<KnowledgeSkill> skill = read_knowledge_skill(file.string(), warnings);
    set_.problems.insert(set_.problems.end(), warnings.begin(), warnings.end());
    if (!skill.ok()) {
      set_.problems.push_back(skill.status().message());
      return nullptr;
    }
    skill->source_dir = dir_;
    skill->index = index;
    if (!names_.insert(skill->name).second) {
      auto here = std::find_if(set_.skills.begin(), set_.skills.end(),
                               [&](const KnowledgeSkill& s) { return s.name == skill->name && s.source_dir == dir_; });
      if (here != set_.skills.end()) {
        set_.problems.push_back(file.string() + ": skill '" + skill->name + "' is already defined by " + here->file +
                                "; this one is ignored");
      }
      return nullptr;
    }
    set_.skills.push_back(std::move(skill).value());
    return &set_.skills.back();
  }

  std::string dir_;
  KnowledgeSkillSet& set_;
  std::set<std::string>& names_;
  std::set<std::string> seen_;
};

}  // namespace

const KnowledgeSkill* KnowledgeSkillSet::find(std::string_view name) const {
  for (const KnowledgeSkill& s : skills) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::vector<std::string> KnowledgeSkillSet::names() const {
  std::vector<std::string> out;
  out.reserve(skills.size());
  for (const KnowledgeSkill& s : skills) out.push_back(s.name);
  return out;
}

Result<KnowledgeSkill> read_knowledge_skill(const std::string& file, std::vector<std::string>& warnings) {
  std::error_code ec;
  uintmax_t size = fs::file_size(file, ec);
  if (ec) return Status::InvalidArgument(file + ": cannot be read: " + ec.message());
  if (size > kMaxSkillFileBytes) {
    return Status::InvalidArgument(file + ": is " + std::to_string(size) + " bytes, more than the " +
                                   std::to_string(kMaxSkillFileBytes) +
                                   " a SKILL.md may have; move reference material into resource files");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::InvalidArgument(file + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  KEEL_ASSIGN_OR_RETURN(KnowledgeSkill skill, parse_knowledge_skill(text.str(), file, warnings));
  fs::path folder = fs::path(file).parent_path();
  skill.folder = folder.string();
  skill.resources = list_resources(folder);
  return skill;
}

KnowledgeSkillSet load_knowledge_skills(std::span<const std::string> dirs) {
  KnowledgeSkillSet set;
  std::set<std::string> names;
  for (const std::string& dir : dirs) {
    DirLoader(dir, set, names).load();
  }
  return set;
}

void apply_skill_settings(KnowledgeSkillSet& set, std::span<const SkillSetting> settings) {
  for (const SkillSetting& setting : settings) {
    if (!setting.enabled) continue;
    for (KnowledgeSkill& s : set.skills) {
      if (s.name == setting.skill) s.enabled = *setting.enabled;
    }
  }
}

}  // namespace keel
