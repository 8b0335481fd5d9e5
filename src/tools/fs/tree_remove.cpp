#include "tools/fs/tree_remove.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/fs/dir_reader.hpp"
#include "tools/fs_common.hpp"

namespace keel::detail {
namespace fs = std::filesystem;

namespace {

std::string removed_so_far(const RemoveStats& s) {
  return std::to_string(s.files) + (s.files == 1 ? " file" : " files") + " and " + std::to_string(s.dirs) +
         (s.dirs == 1 ? " directory" : " directories") + " were removed before it";
}

// Empties the directory open at `dir_fd`, shown to the model as `shown`.
Status remove_contents(int dir_fd, const std::string& shown, int depth, const std::stop_token& stop,
                       RemoveStats& stats) {
  if (depth > kMaxTreeDepth) {
    return Status::ResourceExhausted("'" + shown + "' is nested deeper than " + std::to_string(kMaxTreeDepth) +
                                     " levels; delete its deepest directories first");
  }
  KEEL_ASSIGN_OR_RETURN(std::vector<DirEntry> entries, read_dir(dir_fd, shown));
  for (const DirEntry& e : entries) {
    if (stop.stop_requested()) return Status::Cancelled("deleting was cancelled; " + removed_so_far(stats));
    const std::string child = shown + "/" + e.name;
    if (e.type == fs::file_type::directory) {
      KEEL_ASSIGN_OR_RETURN(UniqueFd sub, open_dir_at(dir_fd, e.name, child));
      KEEL_TRY(remove_contents(sub.get(), child, depth + 1, stop, stats));
      if (::unlinkat(dir_fd, e.name.c_str(), AT_REMOVEDIR) != 0) return fs_error("delete", child, last_error());
      ++stats.dirs;
    } else {
      if (::unlinkat(dir_fd, e.name.c_str(), 0) != 0) return fs_error("delete", child, last_error());
      ++stats.files;
    }
  }
  return Status::Ok();
}

}  // namespace

Status remove_tree(const fs::path& path, std::string_view shown, const std::stop_token& stop, RemoveStats& stats) {
  const std::string name(shown);
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return fs_error("delete", name, last_error());
  if (!S_ISDIR(st.st_mode)) {
    if (::unlink(path.c_str()) != 0) return fs_error("delete", name, last_error());
    ++stats.files;
    return Status::Ok();
  }
  {
    KEEL_ASSIGN_OR_RETURN(UniqueFd dir, open_dir(path, name));
    Status s = remove_contents(dir.get(), name, 1, stop, stats);
    if (!s.ok()) {
      if (s.code() == ErrorCode::kCancelled) return s;
      return Status(s.code(), s.message() + " (" + removed_so_far(stats) + ")");
    }
  }
  if (::rmdir(path.c_str()) != 0) return fs_error("delete", name, last_error());
  ++stats.dirs;
  return Status::Ok();
}

}  // namespace keel::detail
