// tools/fs/dir_reader.hpp — reading directories through file descriptors, never following a
// symbolic link: every directory below the starting one is opened relative to its parent with
// O_NOFOLLOW, so a directory swapped for a link mid-walk cannot lead the walk elsewhere.
//
// Errors are Statuses naming `shown` (the path as the model wrote or sees it).
//
// Thread-safety: free functions; the descriptors they return belong to the caller.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"
#include "tools/fs_common.hpp"

namespace keel::detail {

// How deep the recursive fs tools go; each level holds one open descriptor.
inline constexpr int kMaxTreeDepth = 128;

struct DirEntry {
  std::string name;
  std::filesystem::file_type type = std::filesystem::file_type::unknown;  // of the entry itself (lstat)
  uint64_t size = 0;  // bytes, for regular files
  uint32_t mode = 0;  // permission bits
};

// The file type of a stat() mode.
std::filesystem::file_type file_type_from_mode(uint32_t mode);

// Opens the directory at `path` (the last component must not be a link).
Result<UniqueFd> open_dir(const std::filesystem::path& path, std::string_view shown);
// Opens the subdirectory `name` of the directory open at `parent_fd` (not following a link).
Result<UniqueFd> open_dir_at(int parent_fd, const std::string& name, std::string_view shown);
// The entries of the directory open at `dir_fd` (without "." and ".."), sorted by name. The
// descriptor stays open and usable.
Result<std::vector<DirEntry>> read_dir(int dir_fd, std::string_view shown);

}  // namespace keel::detail
