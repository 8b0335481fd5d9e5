// tools/fs_common.hpp — helpers shared by the fs_* tools: reading argument values, reading file
// contents with size limits, owning file descriptors, and naming file types and errors for the
// model.
//
// Thread-safety: free functions without shared state; safe from any thread. A UniqueFd belongs
// to one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "keel/result.hpp"
#include "keel/tool_spec.hpp"

namespace keel::detail {

// Argument accessors; `args` already passed the tool's schema, these only supply defaults.
std::string string_arg(const nlohmann::json& args, const char* key, std::string fallback);
std::optional<int64_t> int_arg(const nlohmann::json& args, const char* key);
bool bool_arg(const nlohmann::json& args, const char* key, bool fallback);

// "file", "directory", "symlink", "fifo", "socket", "block device", "character device", "other".
std::string_view file_type_name(std::filesystem::file_type type);

// "cannot <verb> '<shown>': <reason>" as a Status with a code that fits the error.
Status fs_error(std::string_view verb, std::string_view shown, const std::error_code& ec);

// Up to `max_bytes` bytes from the start of a file. `shown` names it in errors.
Result<std::string> read_prefix(const std::filesystem::path& path, size_t max_bytes, std::string_view shown);

// A spec for a read-only, concurrency-safe, low-risk file tool (not cacheable: files change).
ToolSpec read_only_fs_spec(std::string name, std::string description, std::string schema);
// A spec for a file tool that changes files: not read-only, runs alone, not cacheable.
ToolSpec changing_fs_spec(std::string name, std::string description, std::string schema, Risk risk);

// Owns a file descriptor; closes it on destruction. -1 holds nothing.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// How a directory is named in listings: "src/", "./", "docs:" (a root in NAME: form).
std::string dir_label(const std::string& display);

// A path below a directory as the model sees it: join_display("src", "a.cpp") is "src/a.cpp",
// join_display(".", "a.cpp") is "a.cpp", join_display("docs:", "a.md") is "docs:a.md".
std::string join_display(const std::string& base, const std::string& rel);

// The current errno as an error_code.
std::error_code last_error();

}  // namespace keel::detail
