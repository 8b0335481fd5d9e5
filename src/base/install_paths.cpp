// Locating an installed keel's files (base/install_paths.hpp).
#include "base/install_paths.hpp"

#include <system_error>

namespace keel::detail {

const std::filesystem::path& executable_dir() {
  static const std::filesystem::path dir = [] {
    std::error_code ec;
    std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path() : exe.parent_path();
  }();
  return dir;
}

std::filesystem::path installed_path(std::string_view relative) {
  const std::filesystem::path& dir = executable_dir();
  if (dir.empty()) return {};
  std::filesystem::path candidate = (dir.parent_path() / relative).lexically_normal();
  std::error_code ec;
  return std::filesystem::exists(candidate, ec) ? candidate : std::filesystem::path();
}

}  // namespace keel::detail
