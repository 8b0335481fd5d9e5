// tools/fs/transfer.hpp — checks and wording shared by fs_copy, fs_move and fs_delete: what may
// be replaced or removed (never a root, never a tree holding one), which links a copy may carry
// along, and how the result is reported.
//
// Thread-safety: free functions over an immutable Workspace; safe from any thread.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "keel/result.hpp"
#include "tools/fs/tree_copy.hpp"
#include "tools/workspace.hpp"

namespace keel::detail {

// PermissionDenied when `path` is a root or holds one ("'docs:' is the root 'docs', which cannot
// be deleted; name something inside it"). `done` is what would happen to it ("deleted", "moved").
Status refuse_roots(const Workspace& ws, const std::filesystem::path& path, std::string_view shown,
                    std::string_view done);

// The entry a move or delete changes: `shown` resolved for writing without following a final
// link, refused when it is or holds a root, and its lstat(). `verb` names the action in errors
// ("move"), `done` in the root refusal ("moved").
struct EntryToChange {
  ResolvedPath resolved;
  struct stat st {};
};
Result<EntryToChange> resolve_entry_to_change(const Workspace& ws, std::string_view shown, std::string_view verb,
                                              std::string_view done);

// Checks a destination before copying or moving `from_type` onto it: an existing directory is
// refused (name a path inside it), an existing file or link only with overwrite, never a file with
// a directory, never the source itself or a place inside it. `tool` names the caller.
Status check_destination(const ResolvedPath& from, std::filesystem::file_type from_type, const ResolvedPath& to,
                         std::string_view shown_from, std::string_view shown_to, bool overwrite,
                         std::string_view tool);

// Keeps a link in a copy only when its target, read from where the copy will put it, stays
// inside the roots.
LinkFilter links_inside_roots(const Workspace& ws);

// " (3 files, 1 directory, 1 link, 120 bytes)" and, when some were left out,
// "; skipped 2: a/l (a symbolic link that leads outside the roots), ...".
std::string describe_copy(const CopyStats& stats);

// Creates the missing directories above `path` (which resolve_path() put inside a root).
Status make_parents(const std::filesystem::path& path, std::string_view shown);

}  // namespace keel::detail
