// `keel skills import`: read the source's SKILL.md files into memory (the root and what its index
// links to), parse all of them, decide what goes where, and only then write — into a staging
// folder that replaces the destination in one rename.
#include "knowledge/knowledge_skill_import.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "keel/knowledge_skills.hpp"
#include "knowledge/knowledge_skill_paths.hpp"
#include "tools/web/web_fetcher.hpp"
#include "tools/web/web_url.hpp"

namespace keel::detail {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxImportedSkills = 64;        // SKILL.md files read from one source
constexpr size_t kMaxCopiedFiles = 2000;         // files of a copied folder
constexpr uintmax_t kMaxCopiedBytes = 64 << 20;  // bytes of a copied folder

struct Entry {
  std::string rel;  // "SKILL.md" for the root, "gas/SKILL.md", ...
  int depth = 0;
  KnowledgeSkill skill;
  std::string text;
};

// Where the SKILL.md files come from.
class Source {
 public:
  static Result<Source> open(const KnowledgeImportOptions& o) {
    Source s;
    std::string lower = o.source.substr(0, 8);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lower.starts_with("http://") || lower.starts_with("https://")) {
      KEEL_ASSIGN_OR_RETURN(s.fetcher_, WebFetcher::create(o.web));
      s.url_ = true;
      s.stop_ = o.stop;
      return s;
    }
    if (o.source.find("://") != std::string::npos) {
      return Status::InvalidArgument("cannot import '" + o.source + "': only http and https URLs are fetched");
    }
    std::error_code ec;
    fs::path path = fs::canonical(o.source, ec);
    if (ec) return Status::InvalidArgument("cannot import '" + o.source + "': " + ec.message());
    if (fs::is_directory(path, ec)) {
      if (!fs::is_regular_file(path / "SKILL.md", ec)) {
        return Status::InvalidArgument("cannot import '" + o.source +
                                       "': the folder has no SKILL.md (a skill is a "
                                       "folder holding SKILL.md)");
      }
      s.folder_ = true;
      s.root_dir_ = path;
    } else {
      if (path.filename() != "SKILL.md") {
        return Status::InvalidArgument("cannot import '" + o.source +
                                       "': give a skill folder, a SKILL.md file or "
                                       "an http(s) URL of one");
      }
      s.root_dir_ = path.parent_path();
    }
    return s;
  }

  bool is_url() const { return url_; }
  bool is_folder() const { return folder_; }
  const fs::path& root_dir() const { return root_dir_; }

  // The root's text; for URLs also fixes the base that links are resolved against.
  Result<std::string> read_root(const std::string& source) {
    if (!url_) return read("SKILL.md");
    KEEL_ASSIGN_OR_RETURN(FetchResponse r, fetch(source));
    base_url_ = r.url.substr(0, r.url.find_first_of("?#"));
    root_url_ = base_url_;
    base_url_.resize(base_url_.rfind('/') + 1);
    return std::move(r.body);
  }

  // A sub-skill's text by its path relative to the root's folder.
  Result<std::string> read(const std::string& rel) {
    if (url_) {
      KEEL_ASSIGN_OR_RETURN(FetchResponse r, fetch(base_url_ + rel));
      return std::move(r.body);
    }
    std::error_code ec;
    fs::path path = fs::canonical(root_dir_ / rel, ec);
    if (ec) return Status::NotFound(display(rel) + ": " + ec.message());
    if (!path_inside(path, root_dir_)) {
      return Status::PermissionDenied(display(rel) + ": leads outside the folder being imported (a symbolic link)");
    }
    if (fs::file_size(path, ec) > kMaxSkillFileBytes || ec) {
      return Status::InvalidArgument(display(rel) + ": larger than " + std::to_string(kMaxSkillFileBytes / 1024) +
                                     " KiB, or unreadable");
    }
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // How `rel` is named in messages: a file path or a URL.
  std::string display(const std::string& rel) const {
    if (url_) return rel == "SKILL.md" && !root_url_.empty() ? root_url_ : base_url_ + rel;
    return (root_dir_ / rel).string();
  }

  // The path relative to the root's folder that `link`, found in the file at `from_rel`, names;
  // "" with `why` set when it is not followed ("" and no `why`: silently ignored).
  std::string resolve(const std::string& from_rel, const std::string& link, std::string& why) const {
    const std::string dir = from_rel.substr(0, from_rel.rfind('/') == std::string::npos ? 0 : from_rel.rfind('/') + 1);
    if (!url_) {
      if (is_url_link(link)) return {};
      why = relative_path_problem(fs::path(link));
      if (!why.empty()) return {};
      return (fs::path(dir) / link).lexically_normal().generic_string();
    }
    std::optional<std::string> url = resolve_http_url(base_url_ + dir, link, true);
    if (!url) return {};
    std::string plain = url->substr(0, url->find('?'));
    if (!plain.starts_with(base_url_)) {
      why = "is not below the index's URL folder " + base_url_;
      return {};
    }
    std::string rel = plain.substr(base_url_.size());
    for (const fs::path& part : fs::path(rel)) {
      const std::string p = part.string();
      bool ok = !p.empty() && p.front() != '.' && std::all_of(p.begin(), p.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~';
      });
      if (!ok) {
        why = "has a path segment '" + p + "' that cannot be a folder name";
        return {};
      }
    }
    return rel;
  }

 private:
  Result<FetchResponse> fetch(const std::string& url) const {
    FetchRequest req;
    req.url = url;
    req.max_body_bytes = kMaxSkillFileBytes + 1;
    req.stop = stop_;
    KEEL_ASSIGN_OR_RETURN(FetchResponse r, fetcher_->fetch(req));
    if (r.status < 200 || r.status > 299) {
      return Status::NotFound("fetching " + url + " answered HTTP " + std::to_string(r.status) + " " + r.reason);
    }
    if (r.truncated || r.body.size() > kMaxSkillFileBytes) {
      return Status::InvalidArgument(url + " is larger than " + std::to_string(kMaxSkillFileBytes / 1024) +
                                     " KiB, more than a SKILL.md may have");
    }
    return r;
  }

  bool url_ = false;
  bool folder_ = false;
  fs::path root_dir_;
  std::string base_url_;  // URL sources: the root's URL up to its last '/'
  std::string root_url_;
  std::shared_ptr<const WebFetcher> fetcher_;
  std::stop_token stop_;
};

// The root and every SKILL.md its index reaches, parsed; a bad root is an error, a bad sub-skill
// a warning.
Result<std::vector<Entry>> gather(Source& source, const std::string& name, std::vector<std::string>& warnings) {
  std::vector<Entry> out;
  KEEL_ASSIGN_OR_RETURN(std::string root_text, source.read_root(name));
  std::vector<std::string> parse_warnings;
  KEEL_ASSIGN_OR_RETURN(KnowledgeSkill root,
                        parse_knowledge_skill(root_text, source.display("SKILL.md"), parse_warnings));
  Entry first;
  first.rel = "SKILL.md";
  first.skill = std::move(root);
  first.text = std::move(root_text);
  out.push_back(std::move(first));
  std::set<std::string> seen = {"SKILL.md"};
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].depth >= kMaxIndexDepth) continue;
    const std::vector<std::string> links = skill_index_links(out[i].skill.body);
    const std::string from = out[i].rel;
    const int depth = out[i].depth;
    for (const std::string& link : links) {
      std::string why;
      std::string rel = source.resolve(from, link, why);
      if (!why.empty())
        warnings.push_back(source.display(from) + ": the link to " + link + " is not followed: it " + why);
      if (rel.empty() || !seen.insert(rel).second) continue;
      if (out.size() >= kMaxImportedSkills) {
        warnings.push_back(source.display(from) + ": more than " + std::to_string(kMaxImportedSkills) +
                           " skills; the rest are left out");
        return out;
      }
      Result<std::string> text = source.read(rel);
      if (!text.ok()) {
        warnings.push_back(text.status().message());
        continue;
      }
      Result<KnowledgeSkill> skill = parse_knowledge_skill(*text, source.display(rel), parse_warnings);
      if (!skill.ok()) {
        warnings.push_back(skill.status().message());
        continue;
      }
      Entry e;
      e.rel = rel;
      e.depth = depth + 1;
      e.skill = std::move(skill).value();
      e.text = std::move(text).value();
      out.push_back(std::move(e));
    }
  }
  warnings.insert(warnings.end(), parse_warnings.begin(), parse_warnings.end());
  return out;
}

// One destination folder: a skill and the part of the source that goes with it.
struct Unit {
  std::string name;
  std::string dir_rel;  // its folder relative to the source root ("" for the root)
};

Status copy_folder(const fs::path& from, const fs::path& to, std::vector<std::string>& warnings) {
  std::error_code ec;
  fs::create_directories(to, ec);
  if (ec) return Status::Internal("cannot create " + to.string() + ": " + ec.message());
  size_t files = 0;
  uintmax_t bytes = 0;
  fs::recursive_directory_iterator it(from, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    const fs::path rel = entry.path().lexically_relative(from);
    std::error_code sec;
    if (entry.path().filename().string().starts_with(".")) {
      if (entry.is_directory(sec) && !entry.is_symlink(sec)) it.disable_recursion_pending();
      continue;
    }
    if (entry.is_symlink(sec)) {
      warnings.push_back(entry.path().string() + ": a symbolic link; left out");
      continue;
    }
    if (entry.is_directory(sec)) {
      fs::create_directories(to / rel, sec);
    } else if (entry.is_regular_file(sec)) {
      bytes += entry.file_size(sec);
      if (++files > kMaxCopiedFiles || bytes > kMaxCopiedBytes) {
        return Status::ResourceExhausted(from.string() + " has more than " + std::to_string(kMaxCopiedFiles) +
                                         " files or " + std::to_string(kMaxCopiedBytes >> 20) +
                                         " MiB; a skill folder should be small");
      }
      fs::copy_file(entry.path(), to / rel, fs::copy_options::overwrite_existing, sec);
    }
    if (sec) return Status::Internal("cannot copy " + entry.path().string() + ": " + sec.message());
  }
  if (ec) return Status::Internal("cannot read " + from.string() + ": " + ec.message());
  return Status::Ok();
}

Status write_file(const fs::path& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (ec || !out) return Status::Internal("cannot write " + path.string());
  return Status::Ok();
}

// Fills a staging folder for `unit` and moves it to `target`.
Status install(const Source& source, const std::vector<Entry>& entries, const Unit& unit, const fs::path& target,
               std::vector<std::string>& warnings) {
  const fs::path staging = target.parent_path() / (".import-" + unit.name + "-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(staging, ec);
  Status s;
  if (source.is_folder()) {
    s = copy_folder(source.root_dir() / unit.dir_rel, staging, warnings);
  } else {
    const std::string prefix = unit.dir_rel.empty() ? std::string() : unit.dir_rel + "/";
    for (const Entry& e : entries) {
      if (!e.rel.starts_with(prefix)) continue;
      s = write_file(staging / e.rel.substr(prefix.size()), e.text);
      if (!s.ok()) break;
    }
  }
  if (s.ok()) {
    fs::remove_all(target, ec);
    fs::rename(staging, target, ec);
    if (ec) s = Status::Internal("cannot move the imported skill to " + target.string() + ": " + ec.message());
  }
  if (!s.ok()) fs::remove_all(staging, ec);
  return s;
}

}  // namespace

Result<KnowledgeImportReport> import_knowledge_skills(const KnowledgeImportOptions& o) {
  KnowledgeImportReport report;
  KEEL_ASSIGN_OR_RETURN(Source source, Source::open(o));
  KEEL_ASSIGN_OR_RETURN(std::vector<Entry> entries, gather(source, o.source, report.warnings));
  for (size_t i = 1; i < entries.size(); ++i) report.index_skills.push_back(entries[i].skill.name);

  std::vector<Unit> units;
  if (o.only.empty()) {
    units.push_back({entries[0].skill.name, ""});
  } else {
    if (entries.size() == 1) {
      return Status::InvalidArgument(source.display("SKILL.md") +
                                     " links to no other SKILL.md, so --only has nothing "
                                     "to pick from; import it without --only");
    }
    std::string listed;
    for (const std::string& n : report.index_skills) listed += (listed.empty() ? "" : ", ") + n;
    std::set<std::string> picked;
    for (const std::string& name : o.only) {
      if (!picked.insert(name).second) continue;
      auto it = std::find_if(entries.begin() + 1, entries.end(), [&](const Entry& e) { return e.skill.name == name; });
      if (it == entries.end()) {
        return Status::InvalidArgument("the index " + source.display("SKILL.md") + " lists no skill '" + name +
                                       "'; it lists: " + listed);
      }
      const size_t slash = it->rel.rfind('/');
      units.push_back({name, it->rel.substr(0, slash)});
    }
  }
  const fs::path dir(o.skills_dir);
  for (const Unit& u : units) {
    std::error_code ec;
    if (fs::exists(dir / u.name, ec) && !o.force) {
      return Status::FailedPrecondition("a skill folder already exists at " + (dir / u.name).string() +
                                        "; add --force to replace it");
    }
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::Internal("cannot create the skills folder " + dir.string() + ": " + ec.message());
  for (const Unit& u : units) {
    KEEL_TRY(install(source, entries, u, dir / u.name, report.warnings));
    report.imported.push_back({u.name, (dir / u.name).string()});
  }
  return report;
}

}  // namespace keel::detail
