#include "tools/fs_common.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace keel::detail {
namespace fs = std::filesystem;

std::string string_arg(const nlohmann::json& args, const char* key, std::string fallback) {
  auto it = args.find(key);
  if (it == args.end() || !it->is_string()) return fallback;
  return it->get<std::string>();
}

std::optional<int64_t> int_arg(const nlohmann::json& args, const char* key) {
  auto it = args.find(key);
  if (it == args.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

bool bool_arg(const nlohmann::json& args, const char* key, bool fallback) {
  auto it = args.find(key);
  if (it == args.end() || !it->is_boolean()) return fallback;
  return it->get<bool>();
}

std::string_view file_type_name(fs::file_type type) {
  switch (type) {
    case fs::file_type::regular: return "file";
    case fs::file_type::directory: return "directory";
    case fs::file_type::symlink: return "symlink";
    case fs::file_type::fifo: return "fifo";
    case fs::file_type::socket: return "socket";
    case fs::file_type::block: return "block device";
    case fs::file_type::character: return "character device";
    default: return "other";
  }
}

Status fs_error(std::string_view verb, std::string_view shown, const std::error_code& ec) {
  std::string msg = "cannot " + std::string(verb) + " '" + std::string(shown) + "': " + ec.message();
  if (ec == std::errc::no_such_file_or_directory) return Status::NotFound(std::move(msg));
  if (ec == std::errc::permission_denied || ec == std::errc::operation_not_permitted) {
    return Status::PermissionDenied(std::move(msg));
  }
  if (ec == std::errc::no_space_on_device || ec == std::errc::file_too_large) {
    return Status::ResourceExhausted(std::move(msg));
  }
  return Status::FailedPrecondition(std::move(msg));
}

Result<std::string> read_prefix(const fs::path& path, size_t max_bytes, std::string_view shown) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fs_error("open", shown, std::error_code(errno, std::generic_category()));
  std::string data;
  try {
    data.resize(max_bytes);
  } catch (const std::bad_alloc&) {
    ::close(fd);
    return Status::ResourceExhausted("cannot read '" + std::string(shown) + "': out of memory");
  }
  size_t got = 0;
  while (got < max_bytes) {
    const ssize_t n = ::read(fd, data.data() + got, max_bytes - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return fs_error("read", shown, std::error_code(err, std::generic_category()));
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  data.resize(got);
  return data;
}

ToolSpec read_only_fs_spec(std::string name, std::string description, std::string schema) {
  // Not cacheable: files change outside keel, so a stored result could be stale within its TTL.
  ToolTraits t;
  t.read_only = true;
  return make_tool_spec(std::move(name), std::move(description), std::move(schema), t);
}

ToolSpec changing_fs_spec(std::string name, std::string description, std::string schema, Risk risk) {
  ToolTraits t;
  t.risk = risk;
  t.timeout_ms = 120000;  // a large tree takes a while to copy or delete; the tools poll stop
  return make_tool_spec(std::move(name), std::move(description), std::move(schema), t);
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

std::string dir_label(const std::string& display) {
  if (!display.empty() && (display.back() == ':' || display.back() == '/')) return display;
  return display + "/";
}

std::string join_display(const std::string& base, const std::string& rel) {
  if (base.empty() || base == ".") return rel;
  if (base.back() == ':' || base.back() == '/') return base + rel;
  return base + "/" + rel;
}

std::error_code last_error() { return std::error_code(errno, std::generic_category()); }

}  // namespace keel::detail
