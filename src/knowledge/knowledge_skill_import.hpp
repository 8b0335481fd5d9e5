// Private to keel (used by `keel skills import`): copies a knowledge skill into a skills folder
// from a local folder, a SKILL.md file or an http(s) URL, parsing it first so that a bad skill is
// refused with the parser's message.
//
// Sources:
//   folder   a folder holding SKILL.md; the whole folder is copied (hidden entries and symbolic
//            links are left out) to <skills_dir>/<name>.
//   file     a SKILL.md; it is copied, with the SKILL.md files its index links to, keeping their
//            relative paths (<skills_dir>/<name>/gas/SKILL.md).
//   URL      like a file, fetched over http(s) with WebToolOptions' timeout and SSRF guard; links
//            are followed when they stay below the index's own URL folder.
// An index (a SKILL.md linking to sub-skills' SKILL.md) is imported whole with its sub-skills;
// with `only`, just the named sub-skills are imported, each into its own <skills_dir>/<name>.
// Links are followed as discovery follows them (keel/knowledge_skills.hpp): relative, no "..",
// kMaxIndexDepth deep. An existing destination is replaced only with `force`; files are written
// into a staging folder first and moved in place at the end.
//
// Thread-safety: free function; concurrent imports into the same folder may overwrite each other.
#pragma once

#include <stop_token>
#include <string>
#include <vector>

#include "keel/result.hpp"
#include "keel/web_tools.hpp"

namespace keel::detail {

struct KnowledgeImportOptions {
  std::string source;             // a folder, a SKILL.md file or an http(s) URL
  std::string skills_dir;         // where the skill folders go, e.g. "<ws>/.keel/skills" (created if missing)
  std::vector<std::string> only;  // names of the index's sub-skills to import; empty: the source whole
  bool force = false;             // replace destination folders that exist
  WebToolOptions web = {};        // URL sources: timeout_ms, allowed (private addresses), ...
  std::stop_token stop = {};      // cancels a fetch
};

struct ImportedSkill {
  std::string name;
  std::string folder;  // where it now lives
};

struct KnowledgeImportReport {
  std::vector<ImportedSkill> imported;
  std::vector<std::string> index_skills;  // the sub-skills the source's index links to, by name
  std::vector<std::string> warnings;      // sub-skills that could not be read, files left out, ...
};

// Imports as described above. Errors: InvalidArgument (a source that does not exist, is not a
// skill, does not parse — the parser's "FILE:LINE: ..." message —, an `only` name the index does
// not list, a URL that is not http(s)), FailedPrecondition (the destination exists and `force` is
// not set), the fetch's error for URLs (PermissionDenied from the address guard, DeadlineExceeded,
// Unavailable), Internal when files cannot be written.
Result<KnowledgeImportReport> import_knowledge_skills(const KnowledgeImportOptions& options);

}  // namespace keel::detail
