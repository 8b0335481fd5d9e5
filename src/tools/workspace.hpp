// tools/workspace.hpp — confinement of file paths to the configured roots: the workspace and any
// extra roots (BuiltinToolOptions::extra_roots), each a directory tree with a name.
//
// How a model names a path (the one scheme every fs tool uses):
//   - "src/a.cpp"            relative: inside the workspace root (named "workspace");
//   - "docs:guide/intro.md"  NAME:relative — inside the root called NAME; "docs:" is that root;
//                            "workspace:src/a.cpp" is the same as "src/a.cpp";
//   - "/abs/path"            absolute: only when it lies inside one of the roots (the most
//                            specific root holding it applies).
// A prefix is read as a root name only when the text before the first ':' is a valid root name
// ([A-Za-z][A-Za-z0-9_-]*) with no '/' in it; an unknown name is refused. A workspace file whose
// name has such a colon is reached as "./notes:v1.txt".
//
// Every path goes through resolve(), which returns the real (symlink-free) path or refuses with a
// message telling the model what to do instead:
//   - `..` may not climb above the root it was written against (even if it comes back in);
//   - symbolic links are followed component by component, as the kernel does; every step of the
//     walk must stay inside a root (or on the way down to one: an ancestor of a root), so a link
//     anywhere in the path (the last component included, dangling links and chains included) that
//     leads outside is refused before anything outside is even looked at; for a path that does
//     not exist yet, the links of its nearest existing ancestor are resolved; a link may lead into
//     another root, whose rules (read-only) then apply;
//   - refused outright: NUL bytes, control characters (U+0000-U+001F, U+007F), Unicode
//     bidirectional controls (U+202A-U+202E, U+2066-U+2069), components over 255 bytes and paths
//     of 4096 bytes or more. Everything else is literal: "%2e%2e", fullwidth dots "．．" or
//     "..∕" are ordinary names, never `..`; there is no `~` expansion;
//   - with Access::kWrite, a path whose real location is in a read-only root is refused.
// Containment is decided by path components, never by string prefix (/tmp/ab is not in /tmp/a).
//
// Limits: the check happens when resolve() runs; a process that swaps a directory for a symlink
// between the check and the use can still race it (the recursive copy and delete open every
// component with O_NOFOLLOW, so they cannot be led out mid-walk). keel targets a model working
// in its own workspace, not an adversary with concurrent write access to it.
//
// Thread-safety: immutable after construction; safe from any thread.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "keel/builtin_tools.hpp"
#include "keel/result.hpp"

namespace keel::detail {

// The name of the workspace root in NAME:path form and in fs_roots.
inline constexpr std::string_view kWorkspaceRootName = "workspace";

// One configured root.
struct Root {
  std::string name;
  std::filesystem::path path;   // canonical
  std::filesystem::path given;  // absolute and lexically normal, as configured (may hold links)
  bool read_only = false;
};

enum class Access { kRead, kWrite };

struct ResolveOptions {
  Access access = Access::kRead;
  bool must_exist = true;  // NotFound when nothing is there
  // false: when the last component is a symbolic link, the link itself is meant (delete, move),
  // not what it points to; the directory holding it is resolved as usual.
  bool follow_last = true;
};

struct ResolvedPath {
  std::filesystem::path path;  // absolute, no `.`/`..`, no links except (follow_last=false) the last
  size_t root = 0;             // index in roots() of the most specific root holding `path`
  bool exists = true;
};

class Workspace {
 public:
  // `root` is made absolute and canonical (symlinks resolved); it should exist (see open()).
  explicit Workspace(const std::filesystem::path& root);
  // A Workspace for an existing directory plus extra roots; InvalidArgument for a missing
  // directory, a malformed, reserved ("workspace") or repeated name, or two roots that are the
  // same directory.
  static Result<Workspace> open(std::string_view root, std::span<const FsRoot> extra_roots = {});

  // The canonical workspace root.
  const std::filesystem::path& root() const { return roots_.front().path; }
  // Every root, the workspace first.
  const std::vector<Root>& roots() const { return roots_; }

  // The real path `user_path` names (see above), for reading: PermissionDenied for paths leading
  // outside; NotFound (with must_exist) when nothing is there; InvalidArgument for malformed
  // paths and unknown root names.
  Result<std::filesystem::path> resolve(std::string_view user_path, bool must_exist) const;
  // The same with the options above; with Access::kWrite, PermissionDenied in a read-only root.
  Result<ResolvedPath> resolve_path(std::string_view user_path, const ResolveOptions& options) const;

  // How to show a real path to the model: "src/a.cpp" and "." in the workspace, "docs:guide.md"
  // and "docs:" in another root; the absolute path when it is in no root.
  std::string display(const std::filesystem::path& resolved) const;

  // True when `path` (absolute, normalized) is a root or lies below one, by components.
  bool contains(const std::filesystem::path& path) const;
  // The index of the most specific root holding `path`, if any.
  std::optional<size_t> root_of(const std::filesystem::path& path) const;
  // The names of the roots that are `path` itself or lie below it (what deleting or moving
  // `path` would take along).
  std::vector<std::string> roots_within(const std::filesystem::path& path) const;

 private:
  Workspace() = default;
  // Is the root or one of its ancestors, or lies below a root: where a walk may pass.
  bool on_the_way(const std::filesystem::path& path) const;
  Status outside(std::string_view shown, std::optional<size_t> addressed, const std::string& detail) const;

  // The outcome of walking a path the way the kernel would.
  struct Walk {
    std::filesystem::path path;  // absolute, no `.`/`..`, no symlinks in its existing part
    bool exists = true;          // every component exists
    bool via_symlink = false;    // a symbolic link was followed on the way
    bool escaped = false;        // stopped at `path`, which is neither in a root nor on the way to one
  };
  Result<Walk> walk(const std::filesystem::path& absolute, std::string_view user_path) const;

  std::vector<Root> roots_;  // roots_[0] is the workspace
};

// True when `path` is `root` or lies below it, compared component by component.
bool path_within(const std::filesystem::path& path, const std::filesystem::path& root);

}  // namespace keel::detail
