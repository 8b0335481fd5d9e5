// keel/builtin_tools.hpp — keel's built-in tools.
//
// The fs family, confined to the configured roots: the workspace (BuiltinToolOptions::
// workspace_root) and the extra roots (extra_roots), each canonicalized when registered.
//   Paths: "src/a.cpp" is in the workspace; "NAME:path" is in the root called NAME ("docs:",
//   "workspace:src/a.cpp"); an absolute path must lie inside a root. `..` that leaves a root,
//   absolute paths outside every root and symlinks that lead out are refused, and so are NUL
//   bytes, control characters, Unicode direction controls and over-long names; see
//   src/tools/workspace.hpp for the exact rules. Nothing in a read-only root can be changed.
//   fs_roots   the roots (name, path, read-only) as JSON.
//   fs_list    one directory's entries with type and size (at most 1000).
//   fs_tree    a depth-limited tree of a directory, paginated (offset, limit).
//   fs_read    a text file or a range of its lines (start_line/end_line or offset_line/
//              max_lines); binary files (a NUL byte in the first 8 KiB) are refused.
//   fs_search  lines matching an RE2 regex under a path; skips .git, symlinks, binary files and
//              files over 2 MiB.
//   fs_stat    type, size, modification time and permissions of a path.
//   fs_walk    the files under a path (recursive, sorted, skipping .git), filtered by a glob,
//              paginated.
//   fs_write   creates, overwrites or appends to a file (risk medium).
//   fs_copy    copies a file or a directory tree; links inside a copied tree are never followed
//              (risk medium).
//   fs_move    moves or renames a file, directory or link (risk medium).
//   fs_delete  deletes a file, link or (recursive) directory; never a root (risk high).
//   The reading tools are read-only, concurrency-safe and risk low; none is cacheable (files
//   change outside keel). The changing ones run alone.
// shell — runs `/bin/sh -c` in the workspace (risk high: needs approval), with a timeout and
//   captured, size-limited output. A non-zero exit code is an ok result that reports
//   "[exit code N]" with the output; only a timeout, cancellation or failure to start is an
//   error. The command's process group is killed when it ends or times out. The command gets a
//   clean environment (PATH, HOME, locale and terminal names, plus shell_env), never keel's keys,
//   and runs inside the OS sandbox of shell_sandbox (keel/base/sandbox_policy.hpp): by default
//   only the workspace is writable and there is no network. A sandbox that cannot start is an
//   error saying how to enable it or turn it off; the command does not run unconfined.
// get_datetime — the current date and time (ISO 8601, with time zone); IANA zone names are
//   read from the system time zone database, without changing TZ.
//
// The tools do not look at ToolContext::workspace_root. Outputs are text meant for a model.
//
// Thread-safety: register_builtin_tools() is subject to ToolRegistry::add()'s rules; the tools
// themselves may run on any thread.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "keel/base/sandbox_policy.hpp"
#include "keel/result.hpp"
#include "keel/tool_registry.hpp"

namespace keel {

// A directory the fs tools may use besides the workspace.
struct FsRoot {
  std::string name;        // how paths name it ("docs:guide.md"): [A-Za-z][A-Za-z0-9_-]*, at most
                           // 32 characters, unique, not "workspace"
  std::string path;        // an existing directory
  bool read_only = false;  // true: fs_write, fs_copy, fs_move and fs_delete change nothing in it
};

// Where fs_read and fs_write find text files besides the disk: an editor that serves its open
// buffers (ACP's fs capability), so the agent reads unsaved changes and its writes land in the
// editor, with its undo. Paths given are absolute and already confined to the roots (the tools
// resolve them first, with the same rules as for the disk).
// Thread-safety: called from tool calls, possibly concurrently.
class TextFileAccess {
 public:
  virtual ~TextFileAccess() = default;
  virtual bool reads() const = 0;   // fs_read reads through read()
  virtual bool writes() const = 0;  // fs_write writes through write()
  virtual Result<std::string> read(const std::string& path) = 0;
  virtual Status write(const std::string& path, const std::string& content) = 0;
};

struct BuiltinToolOptions {
  std::string workspace_root;           // directory the shell runs in; the fs tools' first root
  std::vector<FsRoot> extra_roots;      // more roots for the fs tools; empty: the workspace only
  bool enable_shell = true;             // register the shell tool
  int shell_timeout_ms = 60000;         // shell per-call timeout
  SandboxPolicy shell_sandbox;          // how shell commands are confined (default workspace-write, no network)
  std::vector<std::string> shell_env;   // keel's variables shell commands see besides the allowlist
  size_t max_output_bytes = 64 * 1024;  // output cap for shell and fs_read; longer is cut with a note
  size_t max_write_bytes = 4 * 1024 * 1024;  // fs_write refuses larger contents
  size_t max_search_matches = 200;      // fs_search stops after this many matching lines
  std::shared_ptr<TextFileAccess> text_files;  // null: fs_read and fs_write use the disk
};

// Registers every built-in tool. InvalidArgument if the workspace root or an extra root does not
// exist or a root is misnamed (nothing is registered then); an error from ToolRegistry::add
// (e.g. a name already taken) is returned as is, with the tools before it registered.
Status register_builtin_tools(ToolRegistry& registry, const BuiltinToolOptions& options);

}  // namespace keel
