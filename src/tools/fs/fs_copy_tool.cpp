// fs_copy — copies a file or a directory tree to a new path, in the same root or another
// writable one. `from` is resolved like any read (a link naming it is followed, inside the
// roots); inside a copied tree, links are never followed: each is recreated only when its target
// stays inside the roots from its new place, otherwise skipped and listed in the result. An
// existing destination file is replaced only with overwrite=true; an existing directory is never
// a destination (name the new path inside it).
#include <sys/stat.h>

#include "tools/builtin_factories.hpp"
#include "tools/fs/dir_reader.hpp"
#include "tools/fs/transfer.hpp"
#include "tools/fs/tree_copy.hpp"
#include "tools/fs_common.hpp"

namespace keel::detail {
namespace {
namespace fs = std::filesystem;

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "from": {"type": "string", "description": "File or directory to copy, relative to the workspace, or NAME:path in another root"},
    "to": {"type": "string", "description": "The new path (not an existing directory: name the copy itself, e.g. \"backup/a.txt\")"},
    "overwrite": {"type": "boolean", "description": "Replace an existing file at `to`; default false"}
  },
  "required": ["from", "to"],
  "additionalProperties": false
})json";

Result<std::string> copy_path(const Workspace& ws, const nlohmann::json& args, const std::stop_token& stop) {
  const std::string shown_from = string_arg(args, "from", "");
  const std::string shown_to = string_arg(args, "to", "");
  const bool overwrite = bool_arg(args, "overwrite", false);

  KEEL_ASSIGN_OR_RETURN(const ResolvedPath from, ws.resolve_path(shown_from, ResolveOptions{}));
  struct stat st {};
  if (::lstat(from.path.c_str(), &st) != 0) return fs_error("copy", shown_from, last_error());
  const fs::file_type type = file_type_from_mode(st.st_mode);
  if (type != fs::file_type::regular && type != fs::file_type::directory) {
    return Status::InvalidArgument("'" + shown_from + "' is a " + std::string(file_type_name(type)) +
                                   "; fs_copy copies files and directories");
  }
  ResolveOptions dest;
  dest.access = Access::kWrite;
  dest.must_exist = false;
  KEEL_ASSIGN_OR_RETURN(const ResolvedPath to, ws.resolve_path(shown_to, dest));
  KEEL_TRY(check_destination(from, type, to, shown_from, shown_to, overwrite, "fs_copy"));
  KEEL_TRY(make_parents(to.path, shown_to));

  CopyRequest req;
  req.from = from.path;
  req.to = to.path;
  req.shown_from = shown_from;
  req.shown_to = shown_to;
  req.replace_file = to.exists;
  req.keep_link = links_inside_roots(ws);
  CopyStats stats;
  KEEL_TRY(copy_tree(req, stop, stats));

  const std::string what = type == fs::file_type::directory ? "directory " : "file ";
  return "copied " + what + ws.display(from.path) + " to " + ws.display(to.path) +
         (to.exists ? " (replacing the file there)" : "") + describe_copy(stats);
}

}  // namespace

std::unique_ptr<Tool> make_fs_copy_tool(WorkspacePtr workspace) {
  ToolSpec spec = changing_fs_spec(
      "fs_copy",
      "Copy a file or a whole directory to a new path (creating missing parent directories); links inside a copied "
      "directory are never followed.",
      kSchema, Risk::kMedium);
  return make_tool(std::move(spec), [ws = std::move(workspace)](const nlohmann::json& args, const ToolContext& ctx) {
    return copy_path(*ws, args, ctx.stop);
  });
}

}  // namespace keel::detail
