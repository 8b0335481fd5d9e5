// `keel skills list|show|import|enable|disable`: the knowledge skills (SKILL.md) of a workspace.
// Every command loads the skills the way an agent run does (the configuration's skill folders and
// the workspace's overrides in the database) and prints loading problems as warnings on stderr.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "keel/assembly.hpp"
#include "cli/store_output.hpp"
#include "assembly/tool_setup.hpp"
#include "keel/config.hpp"
#include "keel/knowledge_skills.hpp"
#include "keel/skill_runner.hpp"
#include "knowledge/knowledge_skill_import.hpp"

namespace keel::cli {
namespace {

using json = nlohmann::ordered_json;

constexpr const char* kFooter =
    "Skills are folders holding SKILL.md, looked up in <workspace>/.keel/skills, <workspace>/.agents/skills and\n"
    "~/.config/keel/skills (an earlier folder's skill hides a later one of the same name). Enabling and disabling\n"
    "applies to the workspace only.\n"
    "Exit codes: 0 ok, 1 no such skill (or an import source that was not found), 2 usage, configuration,\n"
    "database or import error.\n";

struct ListArgs {
  std::optional<std::string> workspace;
  bool json = false;
};

struct NameArgs {
  std::string name;
  std::optional<std::string> workspace;
};

struct ImportArgs {
  std::string source;
  bool user = false;
  std::vector<std::string> only;
  bool force = false;
  std::optional<std::string> workspace;
};

// What every subcommand starts from.
struct Loaded {
  std::string workspace;
  KeelConfig config;
  std::unique_ptr<Store> store;
  KnowledgeSkillSet skills;
};

// Resolves the workspace and configuration, opens the database and loads the skills; nullopt
// after reporting why not (`code` is then the exit code).
std::optional<Loaded> load(const std::optional<std::string>& flag, int& code) {
  Loaded out;
  std::string error;
  out.workspace = resolve_workspace(flag, error);
  if (out.workspace.empty()) {
    code = report_usage_error(error);
    return std::nullopt;
  }
  Result<KeelConfig> config = assembly::resolve_host_config({}, out.workspace);
  if (!config.ok()) {
    code = report_usage_error(config.status().message());
    return std::nullopt;
  }
  out.config = std::move(config).value();
  out.store = open_store_or_report(code);
  if (!out.store) return std::nullopt;
  out.skills = assembly::load_workspace_knowledge_skills(out.config, out.workspace, out.store.get());
  for (const std::string& p : out.skills.problems) std::fprintf(stderr, "keel: warning: %s\n", p.c_str());
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) {
    if (!out.empty()) out += ", ";
    out += i;
  }
  return out;
}

// The folder as a person reads it: relative to the workspace, or with ~ for the home folder.
std::string where(const KnowledgeSkill& s, const std::string& workspace) {
  namespace fs = std::filesystem;
  const fs::path folder(s.folder);
  const std::string rel = folder.lexically_relative(workspace).generic_string();
  if (!rel.empty() && !rel.starts_with("..")) return rel;
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    const std::string from_home = folder.lexically_relative(home).generic_string();
    if (!from_home.empty() && !from_home.starts_with("..")) return "~/" + from_home;
  }
  return s.folder;
}

int unknown_skill(const std::string& name, const KnowledgeSkillSet& set) {
  std::string known = set.skills.empty() ? std::string("none") : joined(set.names());
  std::fprintf(stderr, "keel: no knowledge skill named '%s'; known skills: %s\n", name.c_str(), known.c_str());
  return kExitNotFound;
}

// Where an executable skill comes from, as `list` shows it: its folder, or "built-in".
std::string executable_where(const ExecutableSkill& s, const std::string& workspace) {
  if (s.dir.empty()) return "built-in";
  std::error_code ec;
  std::filesystem::path rel = std::filesystem::path(s.dir).lexically_relative(workspace);
  if (!rel.empty() && *rel.begin() != "..") return rel.string();
  return s.dir;
}

// The executable skills of the workspace (a loading error is a warning: list shows the rest).
std::vector<ExecutableSkill> executable_skills(const KeelConfig& config) {
  Result<std::vector<ExecutableSkill>> loaded = load_executable_skills(config.skill_dirs);
  if (loaded.ok()) return std::move(*loaded);
  std::fprintf(stderr, "keel: warning: %s\n", loaded.status().message().c_str());
  return builtin_executable_skills();
}

// The executable skills after the knowledge skills, in their own table.
void print_executable(const std::vector<ExecutableSkill>& skills, const std::string& workspace) {
  size_t id_width = 10;  // "EXECUTABLE"
  size_t where_width = 5;
  for (const ExecutableSkill& s : skills) {
    id_width = std::max(id_width, s.manifest.id.size());
    where_width = std::max(where_width, executable_where(s, workspace).size());
  }
  const int iw = static_cast<int>(id_width);
  const int ww = static_cast<int>(where_width);
  std::printf("%-*s  %-17s  %-*s  %s\n", iw, "EXECUTABLE", "APPROVAL", ww, "WHERE", "DESCRIPTION");
  for (const ExecutableSkill& s : skills) {
    std::printf("%-*s  %-17s  %-*s  %s\n", iw, s.manifest.id.c_str(),
                std::string(skill_approval_mode_name(s.manifest.approval_mode)).c_str(), ww,
                executable_where(s, workspace).c_str(), one_line(s.manifest.description, 160).c_str());
  }
}

int list_command(const ListArgs& args) {
  int code = kExitOk;
  std::optional<Loaded> l = load(args.workspace, code);
  if (!l) return code;
  const std::vector<ExecutableSkill> executable = executable_skills(l->config);
  if (args.json) {
    json out = json::array();
    for (const KnowledgeSkill& s : l->skills.skills) {
      out.push_back({{"kind", "knowledge"},
                     {"name", s.name},
                     {"description", s.description},
                     {"enabled", s.enabled},
                     {"where", where(s, l->workspace)},
                     {"file", s.file},
                     {"source", s.source_dir},
                     {"index", s.index},
                     {"domain", s.domain},
                     {"triggers", s.triggers},
                     {"triggerPatterns", s.trigger_patterns},
                     {"resources", s.resources}});
    }
    for (const ExecutableSkill& s : executable) {
      out.push_back({{"kind", "executable"},
                     {"name", s.manifest.id},
                     {"description", s.manifest.description},
                     {"where", executable_where(s, l->workspace)},
                     {"approvalMode", skill_approval_mode_name(s.manifest.approval_mode)},
                     {"depends", s.manifest.depends},
                     {"triggers", s.manifest.triggers}});
    }
    std::printf("%s\n", out.dump(2, ' ', false, json::error_handler_t::replace).c_str());
    return kExitOk;
  }
  if (l->skills.skills.empty()) {
    std::fprintf(stderr, "no knowledge skills in %s\n", joined(l->config.skill_dirs).c_str());
    print_executable(executable, l->workspace);
    return kExitOk;
  }
  if (!l->config.skills.enabled) std::fprintf(stderr, "keel: skills are turned off (skills.enabled: false)\n");
  size_t name_width = 4;
  size_t where_width = 5;
  for (const KnowledgeSkill& s : l->skills.skills) {
    name_width = std::max(name_width, s.name.size());
    where_width = std::max(where_width, where(s, l->workspace).size());
  }
  const int nw = static_cast<int>(name_width);
  const int ww = static_cast<int>(where_width);
  std::printf("%-*s  %-7s  %-*s  %s\n", nw, "NAME", "ENABLED", ww, "WHERE", "DESCRIPTION");
  for (const KnowledgeSkill& s : l->skills.skills) {
    std::string description = one_line(s.description, 160);
    std::vector<std::string> triggers = s.triggers;
    for (const std::string& p : s.trigger_patterns) triggers.push_back("/" + p + "/");
    if (!triggers.empty()) description += " [triggers: " + one_line(joined(triggers), 120) + "]";
    std::printf("%-*s  %-7s  %-*s  %s\n", nw, s.name.c_str(), s.enabled ? "yes" : "no", ww,
                where(s, l->workspace).c_str(), description.c_str());
  }
  std::printf("\n");
  print_executable(executable, l->workspace);
  return kExitOk;
}

int show_command(const NameArgs& args) {
  int code = kExitOk;
  std::optional<Loaded> l = load(args.workspace, code);
  if (!l) return code;
  const KnowledgeSkill* s = l->skills.find(args.name);
  if (s == nullptr) return unknown_skill(args.name, l->skills);
  std::printf("# %s (%s, %s)\n", s->name.c_str(), s->file.c_str(), s->enabled ? "enabled" : "disabled");
  if (!s->index.empty()) std::printf("# listed by the index skill %s\n", s->index.c_str());
  std::string frontmatter = s->frontmatter;
  if (!frontmatter.empty() && frontmatter.back() != '\n') frontmatter += '\n';
  std::printf("---\n%s---\n\n%s\n", frontmatter.c_str(), s->body.c_str());
  if (!s->resources.empty()) {
    std::printf("\nResource files:\n");
    for (const std::string& r : s->resources) std::printf("- %s\n", r.c_str());
  }
  return kExitOk;
}

int set_enabled(const NameArgs& args, bool enabled) {
  int code = kExitOk;
  std::optional<Loaded> l = load(args.workspace, code);
  if (!l) return code;
  if (l->skills.find(args.name) == nullptr) return unknown_skill(args.name, l->skills);
  SkillSetting setting;
  setting.workspace = l->workspace;
  setting.skill = args.name;
  setting.enabled = enabled;
  if (Status s = l->store->set_skill_setting(setting); !s.ok()) return report_store_error(s);
  std::printf("%s %s in %s\n", enabled ? "enabled" : "disabled", args.name.c_str(), l->workspace.c_str());
  return kExitOk;
}

int import_command(const ImportArgs& args) {
  std::string error;
  const std::string workspace = resolve_workspace(args.workspace, error);
  if (workspace.empty()) return report_usage_error(error);
  Result<KeelConfig> config = assembly::resolve_host_config({}, workspace);
  if (!config.ok()) return report_usage_error(config.status().message());

  detail::KnowledgeImportOptions o;
  o.source = args.source;
  o.only = args.only;
  o.force = args.force;
  o.web.allowed = config->web_allowed;
  o.web.timeout_ms = config->web_timeout_ms;
  if (args.user) {
    // skill_dirs: the workspace's two folders, then the user's when HOME or XDG_CONFIG_HOME is known.
    if (config->skill_dirs.size() < 3) {
      return report_usage_error("--user needs a user folder, but neither HOME nor XDG_CONFIG_HOME is set");
    }
    o.skills_dir = config->skill_dirs.back();
  } else {
    o.skills_dir = (std::filesystem::path(workspace) / ".keel" / "skills").string();
  }
  Result<detail::KnowledgeImportReport> report = detail::import_knowledge_skills(o);
  if (!report.ok()) return report_store_error(report.status());
  for (const std::string& w : report->warnings) std::fprintf(stderr, "keel: warning: %s\n", w.c_str());
  for (const detail::ImportedSkill& s : report->imported) {
    std::printf("imported %s into %s\n", s.name.c_str(), s.folder.c_str());
  }
  if (args.only.empty() && !report->index_skills.empty()) {
    std::printf(
        "%s is an index of %zu skills, imported with it: %s\n"
        "(to import only some, each into its own folder: keel skills import SOURCE --only NAME,...)\n",
        report->imported.front().name.c_str(), report->index_skills.size(), joined(report->index_skills).c_str());
  }
  return kExitOk;
}

CLI::App* with_workspace(CLI::App* cmd, std::optional<std::string>& workspace) {
  cmd->add_option("--workspace,-w", workspace, "Workspace folder (default: current directory)");
  cmd->footer(kFooter);
  return cmd;
}

}  // namespace

void add_knowledge_skill_commands(CLI::App& skills, CommandAction& action) {
  auto list = std::make_shared<ListArgs>();
  CLI::App* list_cmd = with_workspace(
      skills.add_subcommand("list", "List the skills: knowledge skills (name, enabled, folder, description, triggers), then executable skills"),
      list->workspace);
  list_cmd->add_flag("--json", list->json,
                     "Print a JSON array of {name, description, enabled, where, file, source, index, domain, "
                     "triggers, triggerPatterns, resources}");
  list_cmd->callback([&action, list]() { action = [list]() { return list_command(*list); }; });

  auto show = std::make_shared<NameArgs>();
  CLI::App* show_cmd = with_workspace(
      skills.add_subcommand("show", "Print a knowledge skill: frontmatter, body and resource files"), show->workspace);
  show_cmd->add_option("name", show->name, "The skill's name, as keel skills list shows it")->required();
  show_cmd->callback([&action, show]() { action = [show]() { return show_command(*show); }; });

  auto imp = std::make_shared<ImportArgs>();
  CLI::App* import_cmd = with_workspace(
      skills.add_subcommand("import", "Copy a skill (folder, SKILL.md file or http(s) URL) into .keel/skills/NAME"),
      imp->workspace);
  import_cmd->add_option("source", imp->source, "A skill folder, a SKILL.md file or an http(s) URL of one")->required();
  import_cmd->add_flag("--user", imp->user, "Import into the user folder (~/.config/keel/skills) instead");
  import_cmd->add_option("--only", imp->only, "Of an index's sub-skills, import only these (comma-separated names)")
      ->delimiter(',');
  import_cmd->add_flag("--force", imp->force, "Replace a skill folder that already exists");
  import_cmd->callback([&action, imp]() { action = [imp]() { return import_command(*imp); }; });

  for (bool enabled : {true, false}) {
    auto args = std::make_shared<NameArgs>();
    CLI::App* cmd = with_workspace(
        skills.add_subcommand(enabled ? "enable" : "disable",
                              enabled ? "Turn a knowledge skill back on in this workspace"
                                      : "Turn a knowledge skill off in this workspace (not disclosed, not loadable)"),
        args->workspace);
    cmd->add_option("name", args->name, "The skill's name")->required();
    cmd->callback([&action, args, enabled]() { action = [args, enabled]() { return set_enabled(*args, enabled); }; });
  }
}

}  // namespace keel::cli
