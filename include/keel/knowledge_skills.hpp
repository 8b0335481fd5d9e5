// keel/knowledge_skills.hpp — knowledge skills: SKILL.md folders of instructions and reference
// notes that the model reads when a task needs them (progressive disclosure, seed 002).
//
// A skill is a folder holding SKILL.md: YAML frontmatter between two `---` lines, then a markdown
// body. Other files in the folder are its resources.
//
//   ---
//   name: gas                        # required: [A-Za-z0-9][A-Za-z0-9._-]*, at most 64 characters
//   description: Current Ethereum gas prices and fee estimation   # required
//   triggers: [gas fee, gwei]        # optional: words or phrases, case-insensitive, whole words
//   triggerPatterns: ['\bL2s?\b']    # optional: RE2, case-insensitive, partial match
//   domain: ethereum                 # optional
//   ---
//   ## What you probably got wrong
//   ...
//
// Keys other tools use (license, allowed-tools, metadata, version, ...) are accepted and ignored.
//
// Discovery: every immediate subfolder of each folder in KeelConfig::skill_dirs that holds
// SKILL.md (folders whose name starts with "." and executable skills, folders with a skill.json,
// are skipped). A skill in an earlier folder hides a
// skill of the same name in a later one. A SKILL.md whose body links to other SKILL.md files by
// relative path (`[gas](gas/SKILL.md)`, an index such as ETHSkills' root) makes those skills
// discoverable too: links are followed only inside the index's folder — no `..`, no absolute path,
// no URL, no symbolic link leading out — at most kMaxIndexDepth links deep and kMaxSkillsPerDir
// skills per folder; a file reached twice is read once.
//
// Problems never stop the other skills from loading: load_knowledge_skills() returns the skills
// and a list of problems, each starting with the file (and line) at fault, e.g.
// "/ws/.keel/skills/gas/SKILL.md:3: description must be a string".
//
//   keel::KnowledgeSkillSet set = keel::load_knowledge_skills(config.skill_dirs);
//   for (const auto& p : set.problems) warn(p);
//   keel::apply_skill_settings(set, *store->list_skill_settings(workspace));
//   options.knowledge_skills = set.skills;
//   KEEL_TRY(keel::register_load_skill_tool(registry, set.skills));
//
// Thread-safety: plain values and free functions; loading reads only the folders it is given.
// The load_skill tool is read-only and safe to run on several threads at once.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/core/skill_disclosure.hpp"
#include "keel/core/token_counter.hpp"
#include "keel/result.hpp"
#include "keel/store/records.hpp"
#include "keel/tool_registry.hpp"

namespace keel {

inline constexpr int kMaxIndexDepth = 3;                  // links followed from a top-level skill
inline constexpr size_t kMaxSkillsPerDir = 256;           // skills read from one skills folder
inline constexpr size_t kMaxSkillFileBytes = 256 * 1024;  // a larger SKILL.md is a problem
inline constexpr size_t kMaxResourcesListed = 100;        // resource files listed per skill

struct KnowledgeSkill {
  std::string name;
  std::string description;
  std::vector<std::string> triggers;          // keywords and phrases
  std::vector<std::string> trigger_patterns;  // RE2 patterns that compile (bad ones are problems)
  std::string domain;                         // "" when not set
  std::string frontmatter;                    // the YAML text between the `---` lines, as written
  std::string body;                           // the markdown after the frontmatter
  std::string file;                           // SKILL.md, absolute
  std::string folder;                         // the folder holding it, absolute
  std::vector<std::string> resources;         // other files in the folder, relative, sorted (see below)
  std::string source_dir;                     // the skills folder it was found in
  std::string index;                          // the index skill that linked it; "" for a top-level one
  bool enabled = true;                        // false: the workspace disabled it
};
// Resources: regular files below the folder, at most 3 levels deep and kMaxResourcesListed of
// them; hidden entries, symbolic links and subfolders holding their own SKILL.md are left out.

struct KnowledgeSkillSet {
  std::vector<KnowledgeSkill> skills;  // in precedence order: by folder, then name, then index order
  std::vector<std::string> problems;   // each starts with the file at fault

  // The skill called `name`, or nullptr.
  const KnowledgeSkill* find(std::string_view name) const;
  // Every skill's name, in the order of `skills`.
  std::vector<std::string> names() const;
};

// Parses SKILL.md text; `file` names it in messages and fills KnowledgeSkill::file (folder,
// resources and source are left to the caller). InvalidArgument "FILE:LINE: ..." for no
// frontmatter, an unclosed one, invalid YAML, a missing or empty name or description, a bad name,
// or a key of the wrong type. A trigger pattern that does not compile is left out and described
// in `warnings` ("FILE:LINE: ..."). CRLF line ends and a UTF-8 byte order mark are accepted.
Result<KnowledgeSkill> parse_knowledge_skill(std::string_view text, const std::string& file,
                                             std::vector<std::string>& warnings);

// Reads and parses the SKILL.md at `file` and lists the folder's resources. InvalidArgument
// naming the file when it cannot be read, is larger than kMaxSkillFileBytes, or does not parse.
Result<KnowledgeSkill> read_knowledge_skill(const std::string& file, std::vector<std::string>& warnings);

// The targets of the markdown links in `body` that name a SKILL.md ("gas/SKILL.md",
// "https://x/SKILL.md"), in order, without "#fragment" or "?query"; links inside ``` fences are
// ignored. Whether a target may be followed is the caller's decision.
std::vector<std::string> skill_index_links(std::string_view body);

// Discovers the skills of `dirs` (highest precedence first); see the file comment.
KnowledgeSkillSet load_knowledge_skills(std::span<const std::string> dirs);

// Sets KnowledgeSkill::enabled from the workspace's settings (a setting without `enabled` keeps
// the skill on). Settings naming no loaded skill are ignored.
void apply_skill_settings(KnowledgeSkillSet& set, std::span<const SkillSetting> settings);

// Whether `phrase` occurs in `text` as whole words: ASCII case is ignored, runs of white space
// match each other, and a letter, digit or `_` (or any non-ASCII byte) may not touch either end of
// a match that starts or ends with one. Empty phrases never match.
bool phrase_matches(std::string_view phrase, std::string_view text);

// Whether one of the skill's triggers (phrase_matches) or trigger patterns (RE2, case-insensitive,
// partial match) matches `task`.
bool knowledge_skill_triggered(const KnowledgeSkill& skill, std::string_view task);

// The system prompt's Skills section for `task`: the enabled skills' names and descriptions, and
// the bodies of those whose triggers match (see keel/core/skill_disclosure.hpp for the budgets).
SkillDisclosure knowledge_skills_section(std::span<const KnowledgeSkill> skills, std::string_view task,
                                         size_t context_window, const TokenCounter& counter,
                                         const SkillDisclosureOptions& options);

// What load_skill returns for `file` of `skill`: "" for the body (with a list of its resource
// files), else the text of that file. InvalidArgument for an absolute path, a path with "..", a
// file that is not a regular text file or is larger than kMaxSkillFileBytes; PermissionDenied
// for a path that leads outside the skill's folder (through a symbolic link); NotFound when it
// does not exist.
Result<std::string> read_knowledge_skill_text(const KnowledgeSkill& skill, std::string_view file);

// Registers `load_skill` {name, file?}: a skill's body or one of its files (read-only, parallel,
// low risk). An unknown name is an error listing the enabled skills; a disabled skill is refused.
// InvalidArgument when a tool of that name is already registered.
Status register_load_skill_tool(ToolRegistry& registry, std::vector<KnowledgeSkill> skills);

}  // namespace keel
