#include "tools/fs/dir_reader.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace keel::detail {
namespace fs = std::filesystem;

fs::file_type file_type_from_mode(uint32_t mode) {
  if (S_ISREG(mode)) return fs::file_type::regular;
  if (S_ISDIR(mode)) return fs::file_type::directory;
  if (S_ISLNK(mode)) return fs::file_type::symlink;
  if (S_ISFIFO(mode)) return fs::file_type::fifo;
  if (S_ISSOCK(mode)) return fs::file_type::socket;
  if (S_ISBLK(mode)) return fs::file_type::block;
  if (S_ISCHR(mode)) return fs::file_type::character;
  return fs::file_type::unknown;
}

Result<UniqueFd> open_dir(const fs::path& path, std::string_view shown) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return fs_error("open the directory", shown, last_error());
  return fd;
}

Result<UniqueFd> open_dir_at(int parent_fd, const std::string& name, std::string_view shown) {
  UniqueFd fd(::openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return fs_error("open the directory", shown, last_error());
  return fd;
}

Result<std::vector<DirEntry>> read_dir(int dir_fd, std::string_view shown) {
  // fdopendir takes over the descriptor it is given, so it gets a duplicate; the duplicate shares
  // the read position, which is rewound first so the caller's descriptor can be read again.
  UniqueFd copy(::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0));
  if (!copy.valid()) return fs_error("read the directory", shown, last_error());
  DIR* dir = ::fdopendir(copy.get());
  if (dir == nullptr) return fs_error("read the directory", shown, last_error());
  copy.release();
  ::rewinddir(dir);
  std::vector<DirEntry> entries;
  int err = 0;
  for (;;) {
    errno = 0;
    const dirent* d = ::readdir(dir);
    if (d == nullptr) {
      err = errno;
      break;
    }
    const std::string_view name(d->d_name);
    if (name == "." || name == "..") continue;
    DirEntry e;
    e.name = std::string(name);
    struct stat st {};
    if (::fstatat(dir_fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
      e.type = file_type_from_mode(st.st_mode);
      e.size = S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0;
      e.mode = static_cast<uint32_t>(st.st_mode & 07777);
    } else if (errno == ENOENT) {
      continue;  // removed while we were reading
    }
    entries.push_back(std::move(e));
  }
  ::closedir(dir);
  if (err != 0) return fs_error("read the directory", shown, std::error_code(err, std::generic_category()));
  std::sort(entries.begin(), entries.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return entries;
}

}  // namespace keel::detail
