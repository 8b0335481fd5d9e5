#include "tools/fs/transfer.hpp"

#include "tools/fs_common.hpp"
#include "core/text/utf8_text.hpp"

namespace keel::detail {
namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxSkippedShown = 20;

std::string count(uint64_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

}  // namespace

Result<EntryToChange> resolve_entry_to_change(const Workspace& ws, std::string_view shown, std::string_view verb,
                                              std::string_view done) {
  ResolveOptions entry;
  entry.access = Access::kWrite;
  entry.follow_last = false;
  EntryToChange out;
  KEEL_ASSIGN_OR_RETURN(out.resolved, ws.resolve_path(shown, entry));
  KEEL_TRY(refuse_roots(ws, out.resolved.path, shown, done));
  if (::lstat(out.resolved.path.c_str(), &out.st) != 0) return fs_error(verb, shown, last_error());
  return out;
}

Status refuse_roots(const Workspace& ws, const fs::path& path, std::string_view shown, std::string_view done) {
  const std::vector<std::string> names = ws.roots_within(path);
  if (names.empty()) return Status::Ok();
  const std::optional<size_t> self = ws.root_of(path);
  if (self && ws.roots()[*self].path == path) {
    return Status::PermissionDenied("'" + std::string(shown) + "' is the root '" + ws.roots()[*self].name +
                                    "', which cannot be " + std::string(done) + "; name something inside it");
  }
  return Status::PermissionDenied("'" + std::string(shown) + "' holds the root" + (names.size() == 1 ? " '" : "s '") +
                                  join(names, "', '") + "', which cannot be " + std::string(done) +
                                  "; name something that holds no root");
}

Status check_destination(const ResolvedPath& from, fs::file_type from_type, const ResolvedPath& to,
                         std::string_view shown_from, std::string_view shown_to, bool overwrite,
                         std::string_view tool) {
  const std::string f(shown_from);
  const std::string t(shown_to);
  if (to.path == from.path) {
    return Status::InvalidArgument("'" + f + "' and '" + t + "' are the same path; name a different destination");
  }
  if (from_type == fs::file_type::directory && path_within(to.path, from.path)) {
    return Status::InvalidArgument("cannot " + std::string(tool == "fs_move" ? "move" : "copy") + " the directory '" +
                                   f + "' into itself ('" + t + "'); choose a destination outside it");
  }
  if (!to.exists) return Status::Ok();
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(to.path, ec);
  if (fs::is_directory(st)) {
    return Status::InvalidArgument("'" + t + "' is an existing directory; name the new path inside it (e.g. '" +
                                   join_display(t, from.path.filename().string()) + "')");
  }
  if (!overwrite) {
    return Status::FailedPrecondition("'" + t + "' already exists; pass overwrite=true to replace it");
  }
  if (from_type == fs::file_type::directory) {
    return Status::InvalidArgument("cannot replace the file '" + t + "' with the directory '" + f +
                                   "'; delete the file first or choose another destination");
  }
  if (!fs::is_regular_file(st) && !fs::is_symlink(st)) {
    return Status::InvalidArgument("'" + t + "' is a " + std::string(file_type_name(st.type())) +
                                   "; only files and links can be replaced");
  }
  return Status::Ok();
}

LinkFilter links_inside_roots(const Workspace& ws) {
  return [&ws](const fs::path& new_link, const std::string& target) {
    const fs::path t(target);
    const fs::path where = t.is_absolute() ? t : new_link.parent_path() / t;
    ResolveOptions o;
    o.must_exist = false;
    return ws.resolve_path(where.string(), o).ok();
  };
}

std::string describe_copy(const CopyStats& s) {
  std::string out = " (" + count(s.files, "file", "files");
  if (s.dirs > 0) out += ", " + count(s.dirs, "directory", "directories");
  if (s.links > 0) out += ", " + count(s.links, "link", "links");
  out += ", " + count(s.bytes, "byte", "bytes") + ")";
  if (!s.skipped.empty()) {
    out += "; skipped " + std::to_string(s.skipped.size()) + ": ";
    for (size_t i = 0; i < s.skipped.size() && i < kMaxSkippedShown; ++i) out += (i == 0 ? "" : ", ") + s.skipped[i];
    if (s.skipped.size() > kMaxSkippedShown) out += ", ...";
  }
  return out;
}

Status make_parents(const fs::path& path, std::string_view shown) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return fs_error("create the directories for", shown, ec);
  return Status::Ok();
}

}  // namespace keel::detail
