// KeelCatalog's workspace files: file:// URIs, confined to the workspace by their real path.
//
// A URI's path is percent-decoded, resolved with its symbolic links and `..` (weakly_canonical)
// and must then lie inside the workspace, compared by path components. The file is opened
// without following a last-component link and, where /proc is mounted, the opened file's own
// path is checked again, so a link swapped in after the check is not followed out.
// UTF-8 text is returned as text, anything else as base64.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <system_error>

#include "core/text/base64.hpp"
#include "core/text/percent_decode.hpp"
#include "core/text/utf8_text.hpp"
#include "mcp_server/keel_catalog.hpp"
#include "tools/workspace.hpp"

namespace keel::mcp {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view catalog_kFileScheme = "file://";

// Closes a file descriptor when it goes out of scope.
struct CatalogFd {
  int fd = -1;
  explicit CatalogFd(int f) : fd(f) {}
  ~CatalogFd() {
    if (fd >= 0) ::close(fd);
  }
  CatalogFd(const CatalogFd&) = delete;
  CatalogFd& operator=(const CatalogFd&) = delete;
};

std::string catalog_lower_extension(const fs::path& path) {
  std::string ext = path.extension().string();
  for (char& c : ext) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return ext;
}

// The type of a text file by its extension; "" when it has none of these.
std::string_view catalog_text_mime(std::string_view ext) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 19> kTypes{{
      {".txt", "text/plain"},        {".md", "text/markdown"},    {".markdown", "text/markdown"},
      {".json", "application/json"}, {".cpp", "text/x-c++"},      {".hpp", "text/x-c++"},
      {".h", "text/x-c++"},          {".cc", "text/x-c++"},       {".py", "text/x-python"},
      {".js", "text/javascript"},    {".mjs", "text/javascript"}, {".html", "text/html"},
      {".htm", "text/html"},         {".css", "text/css"},        {".yml", "application/yaml"},
      {".yaml", "application/yaml"}, {".csv", "text/csv"},        {".xml", "application/xml"},
      {".svg", "image/svg+xml"},
  }};
  for (const auto& [e, type] : kTypes) {
    if (e == ext) return type;
  }
  return "";
}

// The type of a binary file by its extension; "" when it has none of these.
std::string_view catalog_binary_mime(std::string_view ext) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kTypes{{
      {".png", "image/png"},
      {".jpg", "image/jpeg"},
      {".jpeg", "image/jpeg"},
      {".gif", "image/gif"},
      {".webp", "image/webp"},
      {".pdf", "application/pdf"},
  }};
  for (const auto& [e, type] : kTypes) {
    if (e == ext) return type;
  }
  return "";
}

// Whether `bytes` is well-formed UTF-8 without NUL bytes: what is returned as text.
bool catalog_is_text(std::string_view bytes) {
  for (size_t i = 0; i < bytes.size();) {
    if (bytes[i] == '\0') return false;
    size_t len = detail::utf8_sequence_length(bytes, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

// "file://" and `path` with every byte but unreserved characters and '/' percent-encoded.
std::string catalog_file_uri(const std::string& path) {
  return std::string(catalog_kFileScheme) + detail::percent_encode(path, "/");
}

std::string catalog_outside(const std::string& shown, const fs::path& root) {
  return shown + " is outside the workspace " + root.string();
}

// Where the descriptor's file really is, by /proc; empty when that cannot be told.
fs::path catalog_opened_path(int fd) {
  std::error_code ec;
  fs::path real = fs::read_symlink("/proc/self/fd/" + std::to_string(fd), ec);
  return ec ? fs::path() : real;
}

}  // namespace

std::vector<ResourceEntry> KeelCatalog::file_resources() const {
  std::vector<ResourceEntry> out;
  if (root_.empty()) return out;
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.empty() || name.front() == '.') continue;
    std::error_code type_ec;
    // Links are left out: the list shows what can be read, and a link may lead out.
    if (!fs::is_regular_file(it->symlink_status(type_ec)) || type_ec) continue;
    files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  if (files.size() > kCatalogFilesListed) files.resize(kCatalogFilesListed);
  for (const fs::path& file : files) {
    std::error_code size_ec;
    uintmax_t size = fs::file_size(file, size_ec);
    std::string ext = catalog_lower_extension(file);
    std::string_view mime = catalog_text_mime(ext);
    if (mime.empty()) mime = catalog_binary_mime(ext);
    out.push_back({catalog_file_uri(file.string()), file.filename().string(), "", "workspace file", std::string(mime),
                   size_ec ? -1 : static_cast<int64_t>(size)});
  }
  return out;
}

Result<fs::path> KeelCatalog::resolve_file_uri(const std::string& uri) const {
  if (root_.empty() || !uri.starts_with(catalog_kFileScheme)) return Status::NotFound("unknown resource " + uri);
  std::string_view encoded = std::string_view(uri).substr(catalog_kFileScheme.size());
  // Only local absolute paths ("file:///abs"); "file://host/..." and "file://relative" are not ours.
  if (encoded.empty() || encoded.front() != '/') return Status::NotFound("unknown resource " + uri);
  std::optional<std::string> decoded = detail::percent_decode(encoded, false);
  if (!decoded) return Status::InvalidArgument("bad percent escape in " + uri);
  const std::string& shown = *decoded;
  std::error_code ec;
  fs::path real = fs::weakly_canonical(fs::path(shown), ec);
  if (ec) return Status::NotFound("cannot resolve " + shown + ": " + ec.message());
  real = real.lexically_normal();
  if (!detail::path_within(real, root_)) return Status::NotFound(catalog_outside(shown, root_));
  fs::file_status status = fs::status(real, ec);
  if (status.type() == fs::file_type::not_found) return Status::NotFound("no file " + shown + " in the workspace");
  if (ec) return Status::NotFound("cannot read " + shown + ": " + ec.message());
  if (fs::is_directory(status)) return Status::InvalidArgument(shown + " is a directory, not a file");
  if (!fs::is_regular_file(status)) return Status::InvalidArgument(shown + " is not a regular file");
  return real;
}

Result<nlohmann::json> KeelCatalog::read_file_resource(const std::string& uri) const {
  using Json = nlohmann::json;
  KEEL_ASSIGN_OR_RETURN(fs::path real, resolve_file_uri(uri));
  const std::string shown = real.string();
  // O_NONBLOCK: a FIFO swapped in after the check must not block the read.
  CatalogFd file(::open(real.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (file.fd < 0) {
    int err = errno;
    if (err == ENOENT) return Status::NotFound("no file " + shown + " in the workspace");
    if (err == ELOOP) return Status::NotFound(shown + " became a symbolic link while it was opened");
    return Status::PermissionDenied("cannot read " + shown + ": " + std::strerror(err));
  }
  fs::path opened = catalog_opened_path(file.fd);
  if (!opened.empty() && !detail::path_within(opened, root_)) return Status::NotFound(catalog_outside(shown, root_));
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) return Status::NotFound("cannot read " + shown + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(shown + " is not a regular file");
  auto too_large = [&](uintmax_t size) {
    return Status::ResourceExhausted(shown + " is " + std::to_string(size) + " bytes, more than the " +
                                     std::to_string(options_.max_file_bytes) + " bytes a resource may have");
  };
  if (static_cast<uintmax_t>(st.st_size) > options_.max_file_bytes)
    return too_large(static_cast<uintmax_t>(st.st_size));
  std::string bytes;
  char buf[64 * 1024];
  while (true) {
    ssize_t n = ::read(file.fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::NotFound("cannot read " + shown + ": " + std::strerror(errno));
    if (n == 0) break;
    bytes.append(buf, static_cast<size_t>(n));
    if (bytes.size() > options_.max_file_bytes) return too_large(bytes.size());  // it grew while read
  }
  std::string ext = catalog_lower_extension(real);
  if (catalog_is_text(bytes)) {
    std::string_view mime = catalog_text_mime(ext);
    return Json::array({{{"uri", uri}, {"mimeType", mime.empty() ? "text/plain" : mime}, {"text", bytes}}});
  }
  std::string_view mime = catalog_binary_mime(ext);
  return Json::array({{{"uri", uri},
                       {"mimeType", mime.empty() ? "application/octet-stream" : mime},
                       {"blob", detail::base64_encode(bytes)}}});
}

Result<std::string> KeelCatalog::file_version(const std::string& uri) const {
  KEEL_ASSIGN_OR_RETURN(fs::path real, resolve_file_uri(uri));
  std::error_code ec;
  fs::file_time_type mtime = fs::last_write_time(real, ec);
  if (ec) return Status::NotFound("cannot read " + real.string() + ": " + ec.message());
  uintmax_t size = fs::file_size(real, ec);
  if (ec) return Status::NotFound("cannot read " + real.string() + ": " + ec.message());
  if (size > options_.max_file_bytes) {
    return Status::ResourceExhausted(real.string() + " is " + std::to_string(size) + " bytes, more than the " +
                                     std::to_string(options_.max_file_bytes) + " bytes a resource may have");
  }
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(mtime.time_since_epoch()).count();
  return std::to_string(ns) + ":" + std::to_string(size);
}

std::vector<std::string> KeelCatalog::complete_file_paths(const std::string& typed) const {
  std::vector<std::string> out;
  const std::string root_dir = root_ == root_.root_path() ? root_.string() : root_.string() + "/";
  const std::string value = typed.empty() ? root_dir : typed;
  if (value.front() != '/') return out;
  // A prefix of the workspace's own path ("/ho" of "/home/me/ws/") completes to the workspace.
  if (value.size() < root_dir.size() && root_dir.starts_with(value)) return {root_dir};
  const size_t slash = value.rfind('/');
  const std::string dir = value.substr(0, slash + 1);
  const std::string base = value.substr(slash + 1);
  std::error_code ec;
  fs::path real_dir = fs::weakly_canonical(fs::path(dir), ec);
  if (ec) return out;
  real_dir = real_dir.lexically_normal();
  if (!detail::path_within(real_dir, root_) || !fs::is_directory(real_dir, ec)) return out;
  const bool show_hidden = base.starts_with('.');
  for (fs::directory_iterator it(real_dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!name.starts_with(base) || (name.starts_with('.') && !show_hidden)) continue;
    std::error_code type_ec;
    fs::file_status own = it->symlink_status(type_ec);
    if (type_ec) continue;
    bool is_dir = fs::is_directory(own);
    if (fs::is_symlink(own)) {
      // A link is offered only when it leads to something inside the workspace.
      fs::path target = fs::canonical(it->path(), type_ec);
      if (type_ec || !detail::path_within(target, root_)) continue;
      is_dir = fs::is_directory(target, type_ec);
    }
    out.push_back(dir + name + (is_dir ? "/" : ""));
  }
  std::sort(out.begin(), out.end());
  if (out.size() > kCatalogCompletionValues) out.resize(kCatalogCompletionValues);
  return out;
}

}  // namespace keel::mcp
