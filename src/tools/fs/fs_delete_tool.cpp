// fs_delete — deletes a file, a link (never what it points to) or a directory; a non-empty
// directory only with recursive=true. A root, or a directory holding one, is never deleted, and
// nothing in a read-only root. The recursive delete never follows a link (tree_remove.hpp) and
// polls the stop token between entries.
#include <sys/stat.h>
#include <unistd.h>

#include "tools/builtin_factories.hpp"
#include "tools/fs/dir_reader.hpp"
#include "tools/fs/transfer.hpp"
#include "tools/fs/tree_remove.hpp"
#include "tools/fs_common.hpp"

namespace keel::detail {
namespace {
namespace fs = std::filesystem;

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File, link or directory to delete, relative to the workspace, or NAME:path in another root"},
    "recursive": {"type": "boolean", "description": "Delete a non-empty directory with everything in it; default false"}
  },
  "required": ["path"],
  "additionalProperties": false
})json";

Result<std::string> delete_path(const Workspace& ws, const nlohmann::json& args, const std::stop_token& stop) {
  const std::string shown = string_arg(args, "path", "");
  const bool recursive = bool_arg(args, "recursive", false);
  KEEL_ASSIGN_OR_RETURN(const EntryToChange entry, resolve_entry_to_change(ws, shown, "delete", "deleted"));
  const ResolvedPath& target = entry.resolved;
  const struct stat& st = entry.st;
  const std::string where = ws.display(target.path);

  if (S_ISLNK(st.st_mode)) {
    if (::unlink(target.path.c_str()) != 0) return fs_error("delete", shown, last_error());
    return "deleted the link " + where + " (what it pointed to was not touched)";
  }
  if (!S_ISDIR(st.st_mode)) {
    if (::unlink(target.path.c_str()) != 0) return fs_error("delete", shown, last_error());
    return "deleted " + std::string(S_ISREG(st.st_mode) ? "file " : "") + where;
  }
  if (!recursive) {
    KEEL_ASSIGN_OR_RETURN(UniqueFd dir, open_dir(target.path, shown));
    KEEL_ASSIGN_OR_RETURN(std::vector<DirEntry> entries, read_dir(dir.get(), shown));
    if (!entries.empty()) {
      return Status::FailedPrecondition("'" + shown + "' is a directory with " + std::to_string(entries.size()) +
                                        (entries.size() == 1 ? " entry" : " entries") +
                                        "; pass recursive=true to delete it with everything in it");
    }
  }
  RemoveStats stats;
  KEEL_TRY(remove_tree(target.path, shown, stop, stats));
  return "deleted directory " + where + " (" + std::to_string(stats.files) +
         (stats.files == 1 ? " file" : " files") + " and " + std::to_string(stats.dirs) +
         (stats.dirs == 1 ? " directory" : " directories") + " removed)";
}

}  // namespace

std::unique_ptr<Tool> make_fs_delete_tool(WorkspacePtr workspace) {
  ToolSpec spec = changing_fs_spec(
      "fs_delete",
      "Delete a file, a link or a directory (a non-empty one only with recursive=true). Roots are never deleted.",
      kSchema, Risk::kHigh);
  return make_tool(std::move(spec), [ws = std::move(workspace)](const nlohmann::json& args, const ToolContext& ctx) {
    return delete_path(*ws, args, ctx.stop);
  });
}

}  // namespace keel::detail
