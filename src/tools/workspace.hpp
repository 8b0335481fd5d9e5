// tools/workspace.hpp — confinement of file paths to one directory tree, the workspace.
//
// Every path a model passes to a file tool goes through Workspace::resolve(), which returns the
// real (symlink-free) path or refuses with a message telling the model what to do instead:
//   - relative paths are taken from the root; absolute paths only when they lie inside the root;
//   - `..` may not climb above the root (even if a later component comes back in);
//   - symbolic links are followed component by component, like the kernel does, and the result
//     must stay inside the root: a link anywhere in the path (the last component included,
//     dangling links included) that leads outside is refused; for a path that does not exist yet,
//     the links of its nearest existing ancestor are resolved;
//   - NUL bytes are refused; there is no `~` expansion.
// Containment is decided by path components, never by string prefix (/tmp/ab is not in /tmp/a).
//
// Limits: the check happens when resolve() runs; a process that swaps a directory for a symlink
// between the check and the use can still race it. keel targets a model working in its own
// workspace, not an adversary with concurrent write access to it.
//
// Thread-safety: immutable after construction; safe from any thread.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "keel/result.hpp"

namespace keel::detail {

class Workspace {
 public:
  // `root` is made absolute and canonical (symlinks resolved); it should exist (see open()).
  explicit Workspace(const std::filesystem::path& root);
  // A Workspace for an existing directory; InvalidArgument otherwise.
  static Result<Workspace> open(std::string_view root);

  // The canonical root.
  const std::filesystem::path& root() const { return root_; }

  // The real path `user_path` names inside the workspace (see above). With must_exist, NotFound
  // when nothing is there. PermissionDenied for paths leading outside; InvalidArgument for empty
  // paths and NUL bytes.
  Result<std::filesystem::path> resolve(std::string_view user_path, bool must_exist) const;

  // How to show a resolved path to the model: relative to the root ("src/a.cpp"), "." for the
  // root itself.
  std::string display(const std::filesystem::path& resolved) const;

  // True when `path` (absolute, normalized) is the root or lies below it, by components.
  bool contains(const std::filesystem::path& path) const;

 private:
  std::filesystem::path root_;        // canonical
  std::filesystem::path given_root_;  // absolute and lexically normal, as configured
};

}  // namespace keel::detail
