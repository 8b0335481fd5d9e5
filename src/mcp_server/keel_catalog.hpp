// mcp_server/keel_catalog.hpp — what `keel mcp serve` offers a client besides tools: the
// workspace's stored sessions (as markdown transcripts), its memory notes and its files as
// resources, its enabled knowledge skills as prompts, and completions for their arguments.
//
// Everything is scoped to one workspace: a session of another workspace reads as unknown (the
// same message as an id that does not exist), memory notes are the workspace's and the shared
// ones, and a file is readable only when its real path (symbolic links followed) lies inside the
// workspace folder.
//
//   URI                       mimeType                  version (resource_version)
//   keel://sessions/{id}      text/markdown             "<message count>:<updated_ms>"
//   keel://memory/{id}        text/plain                "<updated_ms>:<size>:<hash>"
//   file:///abs/path          from the extension        "<mtime ns>:<size>"
//
//   keel::mcp::KeelCatalogOptions options;
//   options.store = store.get();
//   options.workspace = "/home/me/project";
//   options.skills = skill_set.skills;
//   keel::mcp::KeelCatalog catalog(std::move(options));
//   auto contents = catalog.read_resource("file:///home/me/project/README.md");
//
// Thread-safety: immutable after construction; every member may be called from any thread (the
// Store is internally synchronised and must outlive the catalog).
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "keel/knowledge_skills.hpp"
#include "keel/result.hpp"
#include "keel/store/store.hpp"
#include "mcp_server/server_catalog.hpp"

namespace keel::mcp {

struct KeelCatalogOptions {
  Store* store = nullptr;              // nullptr: no sessions or memory resources
  std::string workspace;               // absolute, canonical workspace folder; "": no files
  std::vector<KnowledgeSkill> skills;  // only enabled ones become prompts
  size_t max_file_bytes = 1 << 20;     // a larger workspace file is refused (ResourceExhausted)
};

// Limits of what lists and completions show.
inline constexpr int kCatalogSessionsListed = 50;        // most recently updated first
inline constexpr int kCatalogNotesListed = 100;          // most recently updated first
inline constexpr size_t kCatalogFilesListed = 50;        // top-level files, by name
inline constexpr size_t kCatalogCompletionValues = 100;  // values one completion returns

class KeelCatalog final : public ServerCatalog {
 public:
  explicit KeelCatalog(KeelCatalogOptions options);

  // The workspace's recent sessions, recent memory notes and top-level non-hidden regular files
  // (links left out). A store that cannot be read leaves its sessions or notes out of the list.
  std::vector<ResourceEntry> resources() const override;
  // keel://sessions/{id} and keel://memory/{id} (with a store), file://{+path} (with a workspace).
  std::vector<ResourceTemplateEntry> resource_templates() const override;
  // NotFound for a URI that is not this catalog's, an unknown session or note (or one of another
  // workspace), a missing file or one outside the workspace; InvalidArgument for a directory or
  // another non-regular file and a bad percent escape; ResourceExhausted for a file over
  // max_file_bytes. Store errors are passed on.
  Result<nlohmann::json> read_resource(const std::string& uri) const override;
  // Errors as read_resource.
  Result<std::string> resource_version(const std::string& uri) const override;

  // One prompt per enabled skill, with an optional `task` argument.
  std::vector<PromptEntry> prompts() const override;
  // [{role: "user", content: {type: "text", text}}]: the skill's body, its files, the task.
  // NotFound for an unknown (or disabled) skill, InvalidArgument for an argument other than task.
  Result<nlohmann::json> get_prompt(const std::string& name,
                                    const std::map<std::string, std::string>& arguments) const override;

  // A skill's task: no values (free text). Session and note ids starting with the typed value; a
  // file path's entries of the typed folder inside the workspace (folders end in '/'). NotFound
  // for a prompt or template that is not this catalog's.
  Result<std::vector<std::string>> complete(const CompletionQuery& query) const override;

 private:
  // Sessions and memory notes (keel_catalog.cpp).
  Result<SessionRecord> find_session(const std::string& id) const;
  Result<MemoryNote> find_note(const std::string& id) const;
  Result<std::vector<std::string>> complete_session_ids(const std::string& prefix) const;
  Result<std::vector<std::string>> complete_note_ids(const std::string& prefix) const;

  // Workspace files (keel_catalog_files.cpp). `uri` starts with "file://".
  std::vector<ResourceEntry> file_resources() const;
  // The real path of the regular file `uri` names inside the workspace, or the error to return.
  Result<std::filesystem::path> resolve_file_uri(const std::string& uri) const;
  Result<nlohmann::json> read_file_resource(const std::string& uri) const;
  Result<std::string> file_version(const std::string& uri) const;
  std::vector<std::string> complete_file_paths(const std::string& typed) const;

  KeelCatalogOptions options_;
  std::filesystem::path root_;  // the workspace, canonical; empty when none
};

}  // namespace keel::mcp
