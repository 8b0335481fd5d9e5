// Test helper: a fresh directory under the system temp folder, removed with its contents when the
// object goes out of scope.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace keel::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Writes `content` to `relative` (creating parent folders) and returns the full path.
  std::filesystem::path write(std::string_view relative, std::string_view content) const;

 private:
  std::filesystem::path path_;
};

// Reads a whole file; empty when it cannot be read.
std::string read_file(const std::filesystem::path& path);

}  // namespace keel::testing
