#include "tools/workspace.hpp"

#include <deque>
#include <system_error>

namespace keel::detail {
namespace fs = std::filesystem;

namespace {

constexpr int kMaxSymlinks = 40;          // as the kernel's ELOOP limit
constexpr size_t kMaxPathBytes = 4096;    // PATH_MAX, NUL included
constexpr size_t kMaxComponentBytes = 255;  // NAME_MAX
constexpr size_t kMaxRootNameBytes = 32;

// Drops a trailing empty component ("/tmp/x/" -> "/tmp/x").
fs::path strip_trailing_separator(fs::path p) {
  if (!p.has_filename() && p.has_relative_path()) p = p.parent_path();
  return p;
}

bool valid_root_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxRootNameBytes) return false;
  const auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (!alpha(name[0])) return false;
  for (char c : name) {
    if (!alpha(c) && !(c >= '0' && c <= '9') && c != '_' && c != '-') return false;
  }
  return true;
}

std::string hex_byte(unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("0x") + kHex[c >> 4] + kHex[c & 15];
}

// The Unicode direction control starting at s[i] ("U+202E"), or "" when there is none. These make
// a name display differently from the bytes it holds.
std::string direction_control_at(std::string_view s, size_t i) {
  if (i + 2 >= s.size() || static_cast<unsigned char>(s[i]) != 0xE2) return "";
  const auto b1 = static_cast<unsigned char>(s[i + 1]);
  const auto b2 = static_cast<unsigned char>(s[i + 2]);
  const bool marks = b1 == 0x80 && (b2 == 0x8E || b2 == 0x8F);                 // U+200E, U+200F
  const bool embeddings = b1 == 0x80 && b2 >= 0xAA && b2 <= 0xAE;              // U+202A-U+202E
  const bool isolates = b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9;                // U+2066-U+2069
  if (!marks && !embeddings && !isolates) return "";
  const unsigned code = 0x2000 + ((b1 & 0x3F) << 6) + (b2 & 0x3F);
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "U+";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(code >> shift) & 15];
  return out;
}

// Refuses what no file tool should ever pass to the kernel.
Status check_text(std::string_view p) {
  if (p.find('\0') != std::string_view::npos) return Status::InvalidArgument("path contains a NUL byte; pass a plain path");
  if (p.empty()) return Status::InvalidArgument("path is empty; use '.' for the workspace root");
  if (p.size() >= kMaxPathBytes) {
    return Status::InvalidArgument("path is " + std::to_string(p.size()) + " bytes long; paths must be shorter than " +
                                   std::to_string(kMaxPathBytes) + " bytes");
  }
  size_t component = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const auto c = static_cast<unsigned char>(p[i]);
    if (c < 0x20 || c == 0x7F) {
      return Status::InvalidArgument("path contains the control character " + hex_byte(c) + "; pass a plain path");
    }
    if (const std::string dc = direction_control_at(p, i); !dc.empty()) {
      return Status::InvalidArgument("path contains the invisible text-direction control " + dc +
                                     ", which makes a name look different from what it is; pass the plain name");
    }
    component = c == '/' ? 0 : component + 1;
    if (component > kMaxComponentBytes) {
      return Status::InvalidArgument("a name in path '" + std::string(p.substr(0, 40)) + "...' is longer than " +
                                     std::to_string(kMaxComponentBytes) + " bytes, the file system's limit");
    }
  }
  return Status::Ok();
}

}  // namespace

bool path_within(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r) {
    if (r->empty()) continue;  // trailing separator
    while (p != path.end() && p->empty()) ++p;
    if (p == path.end() || *p != *r) return false;
    ++p;
  }
  return true;
}

Workspace::Workspace(const fs::path& root) {
  Root r;
  r.name = std::string(kWorkspaceRootName);
  std::error_code ec;
  fs::path absolute = fs::absolute(root, ec);
  if (ec) absolute = root;
  r.given = strip_trailing_separator(absolute.lexically_normal());
  fs::path canonical = fs::weakly_canonical(r.given, ec);
  r.path = ec ? r.given : strip_trailing_separator(canonical);
  roots_.push_back(std::move(r));
}

Result<Workspace> Workspace::open(std::string_view root, std::span<const FsRoot> extra_roots) {
  const auto check_dir = [](std::string_view dir, const std::string& what) -> Status {
    if (dir.empty()) return Status::InvalidArgument(what + " is empty; configure a directory");
    if (dir.find('\0') != std::string_view::npos) return Status::InvalidArgument(what + " contains a NUL byte");
    std::error_code ec;
    if (!fs::is_directory(fs::path(dir), ec)) {
      return Status::InvalidArgument(what + " '" + std::string(dir) + "' is not an existing directory");
    }
    return Status::Ok();
  };
  try {
    KEEL_TRY(check_dir(root, "the workspace root"));
    Workspace ws(fs::path{std::string(root)});
    for (const FsRoot& extra : extra_roots) {
      if (!valid_root_name(extra.name) || extra.name == kWorkspaceRootName) {
        return Status::InvalidArgument("invalid root name '" + extra.name +
                                       "': use letters, digits, '_' and '-' (starting with a letter, at most 32), "
                                       "and not 'workspace'");
      }
      for (const Root& r : ws.roots_) {
        if (r.name == extra.name) return Status::InvalidArgument("the root name '" + extra.name + "' is used twice");
      }
      KEEL_TRY(check_dir(extra.path, "the root '" + extra.name + "'"));
      Root r = Workspace(fs::path(extra.path)).roots_.front();
      r.name = extra.name;
      r.read_only = extra.read_only;
      for (const Root& other : ws.roots_) {
        if (other.path == r.path) {
          return Status::InvalidArgument("the roots '" + other.name + "' and '" + r.name + "' are the same directory " +
                                         r.path.string());
        }
      }
      ws.roots_.push_back(std::move(r));
    }
    return ws;
  } catch (const std::exception& e) {
    return Status::Internal(std::string("cannot open the workspace: ") + e.what());
  }
}

bool Workspace::contains(const fs::path& path) const { return root_of(path).has_value(); }

std::optional<size_t> Workspace::root_of(const fs::path& path) const {
  std::optional<size_t> best;
  size_t best_len = 0;
  for (size_t i = 0; i < roots_.size(); ++i) {
    if (!path_within(path, roots_[i].path)) continue;
    const size_t len = static_cast<size_t>(std::distance(roots_[i].path.begin(), roots_[i].path.end()));
    if (!best || len > best_len) {
      best = i;
      best_len = len;
    }
  }
  return best;
}

std::vector<std::string> Workspace::roots_within(const fs::path& path) const {
  std::vector<std::string> names;
  for (const Root& r : roots_) {
    if (path_within(r.path, path)) names.push_back(r.name);
  }
  return names;
}

bool Workspace::on_the_way(const fs::path& path) const {
  for (const Root& r : roots_) {
    if (path_within(path, r.path) || path_within(r.path, path) || path_within(r.given, path)) return true;
  }
  return false;
}

std::string Workspace::display(const fs::path& resolved) const {
  const std::optional<size_t> idx = root_of(resolved);
  if (!idx) return resolved.string();
  const fs::path rel = resolved.lexically_relative(roots_[*idx].path);
  const bool top = rel.empty() || rel == ".";
  if (*idx == 0) return top ? "." : rel.generic_string();
  return roots_[*idx].name + ":" + (top ? "" : rel.generic_string());
}

Status Workspace::outside(std::string_view shown, std::optional<size_t> addressed, const std::string& detail) const {
  std::string msg = "path '" + std::string(shown) + "' is outside ";
  if (addressed.value_or(0) == 0 && (addressed || roots_.size() == 1)) {
    msg += "the workspace " + root().string();
  } else if (addressed) {
    msg += "the root '" + roots_[*addressed].name + "' (" + roots_[*addressed].path.string() + ")";
  } else {
    msg += "every root (";
    for (size_t i = 0; i < roots_.size(); ++i) {
      msg += (i == 0 ? "" : ", ") + roots_[i].name + ": " + roots_[i].path.string();
    }
    msg += ")";
  }
  msg += detail;
  msg += addressed || roots_.size() == 1 ? "; use a path inside it" : "; use a path inside one of them";
  return Status::PermissionDenied(std::move(msg));
}

Result<fs::path> Workspace::resolve(std::string_view user_path, bool must_exist) const {
  ResolveOptions o;
  o.must_exist = must_exist;
  KEEL_ASSIGN_OR_RETURN(ResolvedPath r, resolve_path(user_path, o));
  return std::move(r.path);
}

Result<ResolvedPath> Workspace::resolve_path(std::string_view user_path, const ResolveOptions& options) const {
  KEEL_TRY(check_text(user_path));
  const std::string shown(user_path);
  try {
    // 1. Which root the text is written against, and the lexical candidate path.
    std::optional<size_t> addressed;
    fs::path candidate;
    std::string_view rel = user_path;
    if (const size_t colon = user_path.find(':'); colon != std::string_view::npos &&
                                                   valid_root_name(user_path.substr(0, colon))) {
      const std::string_view name = user_path.substr(0, colon);
      for (size_t i = 0; i < roots_.size(); ++i) {
        if (roots_[i].name == name) addressed = i;
      }
      if (!addressed) {
        std::string names;
        for (const Root& r : roots_) names += (names.empty() ? "" : ", ") + r.name;
        return Status::InvalidArgument("unknown root '" + std::string(name) + "' in path '" + shown +
                                       "'; the roots are: " + names + " (fs_roots lists them); a workspace file "
                                       "whose name contains ':' is written './" + shown + "'");
      }
      rel = user_path.substr(colon + 1);
      if (rel.empty()) rel = ".";
      if (rel.front() == '/') {
        return Status::InvalidArgument("after '" + std::string(name) + ":' write a path relative to that root, not '" +
                                       std::string(rel) + "'");
      }
    }
    const fs::path given{std::string(rel)};
    if (!addressed && given.is_absolute()) {
      candidate = given.lexically_normal();
      bool inside = false;
      for (const Root& r : roots_) inside = inside || path_within(candidate, r.path) || path_within(candidate, r.given);
      if (!inside) return outside(shown, std::nullopt, "");
    } else {
      if (!addressed) addressed = 0;
      int depth = 0;
      for (const fs::path& part : given) {
        if (part == "..") {
          if (--depth < 0) return outside(shown, addressed, "");
        } else if (!part.empty() && part != ".") {
          ++depth;
        }
      }
      candidate = roots_[*addressed].path / given;
    }

    // 2. Walk it like the kernel, keeping the last component when it names the entry itself.
    const fs::path last = candidate.filename();
    const bool keep_last = !options.follow_last && !last.empty() && last != "." && last != "..";
    KEEL_ASSIGN_OR_RETURN(Walk real, walk(keep_last ? candidate.parent_path() : candidate, user_path));
    if (!real.escaped && keep_last) {
      real.path /= last;
      if (!on_the_way(real.path)) {
        real.escaped = true;
      } else if (real.exists) {
        std::error_code ec;
        const fs::file_status st = fs::symlink_status(real.path, ec);
        if (st.type() == fs::file_type::not_found || ec == std::errc::not_a_directory) {
          real.exists = false;
        } else if (ec) {
          return Status::PermissionDenied("cannot access '" + shown + "': " + ec.message());
        }
      }
    }

    // 3. Where it landed decides what is allowed.
    const std::optional<size_t> landed = real.escaped ? std::nullopt : root_of(real.path);
    if (!landed) {
      return outside(shown, addressed,
                     real.via_symlink ? " (it leads through a symbolic link to " + real.path.string() + ")" : "");
    }
    if (options.must_exist && !real.exists) {
      return Status::NotFound("'" + shown + "' does not exist in " +
                              (*landed == 0 ? std::string("the workspace") : "the root '" + roots_[*landed].name + "'"));
    }
    if (options.access == Access::kWrite && roots_[*landed].read_only) {
      return Status::PermissionDenied("'" + shown + "' is in the read-only root '" + roots_[*landed].name + "' (" +
                                      roots_[*landed].path.string() +
                                      "); it can be read but not changed; write inside the workspace instead");
    }
    ResolvedPath out;
    out.path = std::move(real.path);
    out.root = *landed;
    out.exists = real.exists;
    return out;
  } catch (const std::exception& e) {  // path allocation failures and the like
    return Status::Internal("cannot resolve '" + shown + "': " + e.what());
  }
}

// Resolves `absolute` component by component: `..` pops, symbolic links (dangling ones too) are
// replaced by their targets; once a component is missing the rest is taken literally, since
// nothing below a missing directory can be a link. Stops (escaped) as soon as the path leaves the
// roots and the ways down to them, before looking at anything there.
Result<Workspace::Walk> Workspace::walk(const fs::path& absolute, std::string_view user_path) const {
  const fs::path start = absolute.relative_path();
  std::deque<fs::path> todo(start.begin(), start.end());
  Walk out;
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
    if (!on_the_way(next)) {
      out.path = std::move(next);
      out.escaped = true;
      return out;
    }
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

}  // namespace keel::detail
