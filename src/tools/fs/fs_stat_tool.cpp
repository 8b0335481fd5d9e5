// fs_stat — type, size, modification time (ISO 8601, UTC) and permissions of one path.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>

#include "tools/builtin_factories.hpp"
#include "tools/fs_common.hpp"
#include "core/text/utf8_text.hpp"

namespace keel::detail {
namespace {
namespace fs = std::filesystem;

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File or directory, relative to the workspace, or NAME:path in another root"}
  },
  "required": ["path"],
  "additionalProperties": false
})json";

std::string type_of(mode_t mode) {
  if (S_ISREG(mode)) return "file";
  if (S_ISDIR(mode)) return "directory";
  if (S_ISLNK(mode)) return "symlink";
  if (S_ISFIFO(mode)) return "fifo";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISBLK(mode)) return "block device";
  if (S_ISCHR(mode)) return "character device";
  return "other";
}

// "rw-r--r-- (0644)".
std::string permissions_of(mode_t mode) {
  static constexpr mode_t kBits[] = {S_IRUSR, S_IWUSR, S_IXUSR, S_IRGRP, S_IWGRP, S_IXGRP, S_IROTH, S_IWOTH, S_IXOTH};
  std::string out;
  for (size_t i = 0; i < 9; ++i) out += (mode & kBits[i]) ? "rwx"[i % 3] : '-';
  char octal[16];
  std::snprintf(octal, sizeof octal, " (%04o)", static_cast<unsigned>(mode & 07777));
  return out + octal;
}

Result<std::string> stat_path(const WorkspacePtr& ws, const nlohmann::json& args) {
  const std::string shown = string_arg(args, "path", "");
  KEEL_ASSIGN_OR_RETURN(fs::path path, ws->resolve(shown, /*must_exist=*/true));
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return fs_error("stat", shown, std::error_code(errno, std::generic_category()));
  std::string out = "path: " + ws->display(path) + "\n";
  out += "type: " + type_of(st.st_mode) + "\n";
  out += "size: " + std::to_string(static_cast<long long>(st.st_size)) + " bytes\n";
  out += "modified: " + iso8601_utc(st.st_mtim.tv_sec) + "\n";
  out += "permissions: " + permissions_of(st.st_mode) + "\n";
  return out;
}

}  // namespace

std::unique_ptr<Tool> make_fs_stat_tool(WorkspacePtr workspace) {
  ToolSpec spec = read_only_fs_spec(
      "fs_stat", "Show the type, size, modification time (UTC) and permissions of a path.", kSchema);
  spec.bounded = true;  // one stat() of a workspace path
  return make_tool(std::move(spec), [ws = std::move(workspace)](const nlohmann::json& args, const ToolContext&) {
    return stat_path(ws, args);
  });
}

}  // namespace keel::detail
