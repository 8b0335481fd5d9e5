#include "tools/workspace.hpp"

#include <deque>
#include <system_error>

namespace keel::detail {
namespace fs = std::filesystem;

namespace {

constexpr int kMaxSymlinks = 40;  // as the kernel's ELOOP limit

// Drops a trailing empty component ("/tmp/x/" -> "/tmp/x").
fs::path strip_trailing_separator(fs::path p) {
  if (!p.has_filename() && p.has_relative_path()) p = p.parent_path();
  return p;
}

bool within(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r) {
    if (r->empty()) continue;  // trailing separator
    while (p != path.end() && p->empty()) ++p;
    if (p == path.end() || *p != *r) return false;
    ++p;
  }
  return true;
}

// The outcome of walking a path the way the kernel would.
struct RealPath {
  fs::path path;           // absolute, no `.`/`..`, no symlinks in its existing part
  bool exists = true;      // every component exists
  bool via_symlink = false;  // a symbolic link was followed on the way
};

// Resolves `absolute` component by component: `..` pops, symbolic links (dangling ones too) are
// replaced by their targets; once a component is missing the rest is taken literally, since
// nothing below a missing directory can be a link.
Result<RealPath> walk(const fs::path& absolute, std::string_view user_path) {
  const fs::path start = absolute.relative_path();
  std::deque<fs::path> todo(start.begin(), start.end());
  RealPath out;
  out.path = absolute.root_path();
  int links = 0;
  while (!todo.empty()) {
    fs::path part = std::move(todo.front());
    todo.pop_front();
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      out.path = out.path.parent_path();  // "/" stays "/"
      continue;
    }
    fs::path next = out.path / part;
    if (!out.exists) {
      out.path = std::move(next);
      continue;
    }
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(next, ec);
    if (st.type() == fs::file_type::not_found || ec == std::errc::not_a_directory) {
      out.exists = false;
      out.path = std::move(next);
      continue;
    }
    if (ec) {
      return Status::PermissionDenied("cannot access '" + std::string(user_path) + "': " + ec.message());
    }
    if (fs::is_symlink(st)) {
      if (++links > kMaxSymlinks) {
        return Status::InvalidArgument("cannot resolve '" + std::string(user_path) +
                                       "': too many levels of symbolic links");
      }
      fs::path target = fs::read_symlink(next, ec);
      if (ec) return Status::PermissionDenied("cannot read link '" + next.string() + "': " + ec.message());
      out.via_symlink = true;
      if (target.is_absolute()) out.path = target.root_path();
      const fs::path rest = target.relative_path();
      todo.insert(todo.begin(), rest.begin(), rest.end());
      continue;
    }
    out.path = std::move(next);
  }
  return out;
}

}  // namespace

Workspace::Workspace(const fs::path& root) {
  std::error_code ec;
  fs::path absolute = fs::absolute(root, ec);
  if (ec) absolute = root;
  given_root_ = strip_trailing_separator(absolute.lexically_normal());
  fs::path canonical = fs::weakly_canonical(given_root_, ec);
  root_ = ec ? given_root_ : strip_trailing_separator(canonical);
}

Result<Workspace> Workspace::open(std::string_view root) {
  if (root.empty()) return Status::InvalidArgument("the workspace root is empty; configure a directory");
  if (root.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument("the workspace root contains a NUL byte");
  }
  std::error_code ec;
  const fs::path path(root);
  if (!fs::is_directory(path, ec)) {
    return Status::InvalidArgument("the workspace root '" + std::string(root) + "' is not an existing directory");
  }
  return Workspace(path);
}

bool Workspace::contains(const fs::path& path) const { return within(path, root_); }

std::string Workspace::display(const fs::path& resolved) const {
  fs::path rel = resolved.lexically_relative(root_);
  if (rel.empty() || rel == ".") return ".";
  return rel.generic_string();
}

Result<fs::path> Workspace::resolve(std::string_view user_path, bool must_exist) const {
  if (user_path.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument("path contains a NUL byte; pass a plain path");
  }
  if (user_path.empty()) return Status::InvalidArgument("path is empty; use '.' for the workspace root");
  const std::string shown(user_path);
  const auto outside = [&](const std::string& detail) {
    return Status::PermissionDenied("path '" + shown + "' is outside the workspace " + root_.string() + detail +
                                    "; use a path inside it");
  };

  try {
    const fs::path given(shown);
    fs::path candidate;
    if (given.is_absolute()) {
      candidate = given.lexically_normal();
      if (!within(candidate, root_) && !within(candidate, given_root_)) return outside("");
    } else {
      int depth = 0;
      for (const fs::path& part : given) {
        if (part == "..") {
          if (--depth < 0) return outside("");
        } else if (!part.empty() && part != ".") {
          ++depth;
        }
      }
      candidate = root_ / given;
    }

    KEEL_ASSIGN_OR_RETURN(RealPath real, walk(candidate, user_path));
    if (!within(real.path, root_)) {
      return outside(real.via_symlink ? " (it leads through a symbolic link to " + real.path.string() + ")" : "");
    }
    if (must_exist && !real.exists) {
      return Status::NotFound("'" + shown + "' does not exist in the workspace");
    }
    return real.path;
  } catch (const std::exception& e) {  // path allocation failures and the like
    return Status::Internal("cannot resolve '" + shown + "': " + e.what());
  }
}

}  // namespace keel::detail
