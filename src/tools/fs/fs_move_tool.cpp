// fs_move — moves or renames a file, directory or link. The entry itself is moved: a link named
// as `from` moves as a link, and a link at `to` is replaced, never written through. Both ends
// must be in writable roots; a root, or a directory holding one, cannot be moved. Within one file
// system this is a rename(2); across file systems the tree is copied (links as they are) and the
// original then deleted.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>

#include "tools/builtin_factories.hpp"
#include "tools/fs/dir_reader.hpp"
#include "tools/fs/transfer.hpp"
#include "tools/fs/tree_copy.hpp"
#include "tools/fs/tree_remove.hpp"
#include "tools/fs_common.hpp"

namespace keel::detail {
namespace {
namespace fs = std::filesystem;

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "from": {"type": "string", "description": "File, directory or link to move, relative to the workspace, or NAME:path in another root"},
    "to": {"type": "string", "description": "The new path (not an existing directory: name the moved entry itself, e.g. \"old/a.txt\")"},
    "overwrite": {"type": "boolean", "description": "Replace an existing file or link at `to`; default false"}
  },
  "required": ["from", "to"],
  "additionalProperties": false
})json";

// The slow path of a move between file systems: copy, then delete the original.
Status move_across(const ResolvedPath& from, const ResolvedPath& to, const std::string& shown_from,
                   const std::string& shown_to, const std::stop_token& stop) {
  if (to.exists && ::unlink(to.path.c_str()) != 0) return fs_error("replace", shown_to, last_error());
  CopyRequest req;
  req.from = from.path;
  req.to = to.path;
  req.shown_from = shown_from;
  req.shown_to = shown_to;
  CopyStats copied;
  if (Status s = copy_tree(req, stop, copied); !s.ok()) {
    RemoveStats ignored;
    (void)remove_tree(to.path, shown_to, std::stop_token(), ignored);  // our own partial copy
    return Status(s.code(), s.message() + "; nothing was moved");
  }
  RemoveStats removed;
  if (Status s = remove_tree(from.path, shown_from, std::stop_token(), removed); !s.ok()) {
    return Status(s.code(), "copied '" + shown_from + "' to '" + shown_to +
                                "' but could not delete the original: " + s.message());
  }
  return Status::Ok();
}

Result<std::string> move_path(const Workspace& ws, const nlohmann::json& args, const std::stop_token& stop) {
  const std::string shown_from = string_arg(args, "from", "");
  const std::string shown_to = string_arg(args, "to", "");
  const bool overwrite = bool_arg(args, "overwrite", false);

  KEEL_ASSIGN_OR_RETURN(const EntryToChange source, resolve_entry_to_change(ws, shown_from, "move", "moved"));
  const ResolvedPath& from = source.resolved;
  const fs::file_type type = file_type_from_mode(source.st.st_mode);

  ResolveOptions destination;
  destination.access = Access::kWrite;
  destination.follow_last = false;
  destination.must_exist = false;
  KEEL_ASSIGN_OR_RETURN(const ResolvedPath to, ws.resolve_path(shown_to, destination));
  KEEL_TRY(check_destination(from, type, to, shown_from, shown_to, overwrite, "fs_move"));
  KEEL_TRY(make_parents(to.path, shown_to));

  if (std::rename(from.path.c_str(), to.path.c_str()) != 0) {
    if (errno != EXDEV) return fs_error("move", shown_from, last_error());
    KEEL_TRY(move_across(from, to, shown_from, shown_to, stop));
  }
  const std::string what = type == fs::file_type::directory ? "directory "
                           : type == fs::file_type::symlink ? "link "
                                                            : "";
  return "moved " + what + ws.display(from.path) + " to " + ws.display(to.path) +
         (to.exists ? " (replacing what was there)" : "");
}

}  // namespace

std::unique_ptr<Tool> make_fs_move_tool(WorkspacePtr workspace) {
  ToolSpec spec = changing_fs_spec(
      "fs_move", "Move or rename a file, directory or link (creating missing parent directories).", kSchema,
      Risk::kMedium);
  return make_tool(std::move(spec), [ws = std::move(workspace)](const nlohmann::json& args, const ToolContext& ctx) {
    return move_path(*ws, args, ctx.stop);
  });
}

}  // namespace keel::detail
