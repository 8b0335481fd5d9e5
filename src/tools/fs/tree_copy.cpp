#include "tools/fs/tree_copy.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "tools/fs/dir_reader.hpp"
#include "tools/fs_common.hpp"

namespace keel::detail {
namespace fs = std::filesystem;

namespace {

constexpr size_t kChunk = 64 * 1024;
constexpr int kChunksPerStopCheck = 16;  // 1 MiB

// What one copy needs at hand while it descends.
struct Copier {
  const CopyRequest& req;
  const std::stop_token& stop;
  CopyStats& stats;

  Status cancelled() const {
    return Status::Cancelled("copying was cancelled after " + std::to_string(stats.files) +
                             " files; the part copied so far is left at '" + req.shown_to + "'");
  }

  // Copies the regular file `src_name` in `src_dir` to `dst_name` in `dst_dir`.
  Status copy_file(int src_dir, const std::string& src_name, int dst_dir, const std::string& dst_name,
                   const std::string& shown_src, const std::string& shown_dst, bool replace) {
    UniqueFd in(::openat(src_dir, src_name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!in.valid()) return fs_error("read", shown_src, last_error());
    struct stat st {};
    if (::fstat(in.get(), &st) != 0) return fs_error("read", shown_src, last_error());
    if (!S_ISREG(st.st_mode)) return Status::FailedPrecondition("'" + shown_src + "' is no longer a regular file");
    const int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (replace ? O_TRUNC : O_EXCL);
    UniqueFd out(::openat(dst_dir, dst_name.c_str(), flags, 0600));
    if (!out.valid()) return fs_error("create", shown_dst, last_error());
    std::string buf(kChunk, '\0');
    for (int chunk = 1;; ++chunk) {
      if (chunk % kChunksPerStopCheck == 0 && stop.stop_requested()) return cancelled();
      const ssize_t n = ::read(in.get(), buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return fs_error("read", shown_src, last_error());
      if (n == 0) break;
      size_t done = 0;
      while (done < static_cast<size_t>(n)) {
        const ssize_t w = ::write(out.get(), buf.data() + done, static_cast<size_t>(n) - done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return fs_error("write", shown_dst, last_error());
        done += static_cast<size_t>(w);
      }
      stats.bytes += static_cast<uint64_t>(n);
    }
    if (::fchmod(out.get(), st.st_mode & 0777) != 0) {
      return fs_error("set the permissions of", shown_dst, last_error());
    }
    const int fd = out.release();
    if (::close(fd) != 0) return fs_error("write", shown_dst, last_error());
    ++stats.files;
    return Status::Ok();
  }

  // Recreates the link `src_name` of `src_dir` as `new_link` in `dst_dir`, if allowed.
  Status copy_link(int src_dir, const std::string& src_name, int dst_dir, const fs::path& new_link,
                   const std::string& rel, const std::string& shown_dst) {
    std::string target(4096, '\0');
    const ssize_t n = ::readlinkat(src_dir, src_name.c_str(), target.data(), target.size());
    if (n < 0) return fs_error("read the link", rel, last_error());
    target.resize(static_cast<size_t>(n));
    if (req.keep_link && !req.keep_link(new_link, target)) {
      stats.skipped.push_back(rel + " (a symbolic link that leads outside the roots)");
      return Status::Ok();
    }
    const std::string name = new_link.filename().string();
    if (::symlinkat(target.c_str(), dst_dir, name.c_str()) != 0) {
      return fs_error("create the link", shown_dst, last_error());
    }
    ++stats.links;
    return Status::Ok();
  }

  // Copies the contents of the directory open at `src_dir` into `dst_dir` (real path `dst_path`).
  Status copy_contents(int src_dir, int dst_dir, const fs::path& dst_path, const std::string& rel, int depth) {
    if (depth > kMaxTreeDepth) {
      return Status::ResourceExhausted("'" + req.shown_from + "' is nested deeper than " +
                                       std::to_string(kMaxTreeDepth) + " levels; copy its parts separately");
    }
    const std::string shown_src = rel.empty() ? req.shown_from : req.shown_from + "/" + rel;
    KEEL_ASSIGN_OR_RETURN(std::vector<DirEntry> entries, read_dir(src_dir, shown_src));
    for (const DirEntry& e : entries) {
      if (stop.stop_requested()) return cancelled();
      const std::string child = rel.empty() ? e.name : rel + "/" + e.name;
      const std::string src_shown = req.shown_from + "/" + child;
      const std::string dst_shown = req.shown_to + "/" + child;
      switch (e.type) {
        case fs::file_type::regular:
          KEEL_TRY(copy_file(src_dir, e.name, dst_dir, e.name, src_shown, dst_shown, false));
          break;
        case fs::file_type::directory: {
          if (::mkdirat(dst_dir, e.name.c_str(), 0700) != 0) return fs_error("create", dst_shown, last_error());
          ++stats.dirs;
          KEEL_ASSIGN_OR_RETURN(UniqueFd sub_src, open_dir_at(src_dir, e.name, src_shown));
          KEEL_ASSIGN_OR_RETURN(UniqueFd sub_dst, open_dir_at(dst_dir, e.name, dst_shown));
          KEEL_TRY(copy_contents(sub_src.get(), sub_dst.get(), dst_path / e.name, child, depth + 1));
          // Permissions last, so a read-only directory can still be filled.
          if (::fchmod(sub_dst.get(), e.mode & 0777) != 0) {
            return fs_error("set the permissions of", dst_shown, last_error());
          }
          break;
        }
        case fs::file_type::symlink:
          KEEL_TRY(copy_link(src_dir, e.name, dst_dir, dst_path / e.name, child, dst_shown));
          break;
        default:
          stats.skipped.push_back(child + " (" + std::string(file_type_name(e.type)) + ")");
      }
    }
    return Status::Ok();
  }
};

}  // namespace

Status copy_tree(const CopyRequest& req, const std::stop_token& stop, CopyStats& stats) {
  Copier c{req, stop, stats};
  const std::string from_dir = req.from.parent_path().string();
  const std::string to_dir = req.to.parent_path().string();
  const std::string from_name = req.from.filename().string();
  const std::string to_name = req.to.filename().string();
  KEEL_ASSIGN_OR_RETURN(UniqueFd src_parent, open_dir(req.from.parent_path(), from_dir));
  KEEL_ASSIGN_OR_RETURN(UniqueFd dst_parent, open_dir(req.to.parent_path(), to_dir));
  struct stat st {};
  if (::fstatat(src_parent.get(), from_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return fs_error("copy", req.shown_from, last_error());
  }
  if (S_ISREG(st.st_mode)) {
    return c.copy_file(src_parent.get(), from_name, dst_parent.get(), to_name, req.shown_from, req.shown_to,
                       req.replace_file);
  }
  if (S_ISLNK(st.st_mode)) {
    return c.copy_link(src_parent.get(), from_name, dst_parent.get(), req.to, from_name, req.shown_to);
  }
  if (!S_ISDIR(st.st_mode)) {
    return Status::InvalidArgument("'" + req.shown_from + "' is a " +
                                   std::string(file_type_name(file_type_from_mode(st.st_mode))) +
                                   "; only files, directories and links can be copied");
  }
  if (::mkdirat(dst_parent.get(), to_name.c_str(), 0700) != 0) return fs_error("create", req.shown_to, last_error());
  ++stats.dirs;
  KEEL_ASSIGN_OR_RETURN(UniqueFd src, open_dir_at(src_parent.get(), from_name, req.shown_from));
  KEEL_ASSIGN_OR_RETURN(UniqueFd dst, open_dir_at(dst_parent.get(), to_name, req.shown_to));
  KEEL_TRY(c.copy_contents(src.get(), dst.get(), req.to, "", 1));
  if (::fchmod(dst.get(), st.st_mode & 0777) != 0) return fs_error("set the permissions of", req.shown_to, last_error());
  return Status::Ok();
}

}  // namespace keel::detail
