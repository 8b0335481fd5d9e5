// MCP OAuth files: opened without following links, refused when others may read them.
#include "assembly/mcp_oauth_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "base/random_token.hpp"
#include "keel/store/sqlite_store.hpp"
#include "llm/sha256.hpp"

namespace keel::assembly {

namespace {

std::string oauth_errno() { return std::strerror(errno); }

}  // namespace

Result<std::filesystem::path> mcp_oauth_file(std::string_view name, std::string_view url,
                                             const std::filesystem::path& folder) {
  std::filesystem::path dir = folder;
  if (dir.empty()) {
    KEEL_ASSIGN_OR_RETURN(std::filesystem::path db, default_store_path());
    dir = db.parent_path() / "mcp-oauth";
  }
  detail::Sha256 hash;
  hash.update(url);
  return dir / (std::string(name) + "-" + hash.hex_digest().substr(0, 16) + ".json");
}

Result<std::optional<nlohmann::json>> read_mcp_oauth_file(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<nlohmann::json>();
    return Status::FailedPrecondition("cannot open " + file.string() + ": " + oauth_errno() +
                                      " (delete it and run `keel mcp login` again)");
  }
  struct stat st {};
  std::string text;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (ok && (st.st_uid != ::geteuid() || (st.st_mode & 077) != 0)) {
    ::close(fd);
    return Status::FailedPrecondition(file.string() + " holds OAuth tokens and others may read or own it; delete it and "
                                      "run `keel mcp login` again");
  }
  char buf[8192];
  ssize_t n = 0;
  while (ok && (n = ::read(fd, buf, sizeof buf)) > 0 && text.size() < (1u << 20)) text.append(buf, static_cast<size_t>(n));
  ::close(fd);
  if (!ok || n < 0) return Status::Unavailable("cannot read " + file.string());
  nlohmann::json state = nlohmann::json::parse(text, nullptr, false);
  if (!state.is_object()) {
    return Status::FailedPrecondition(file.string() + " is not valid JSON; delete it and run `keel mcp login` again");
  }
  return std::optional<nlohmann::json>(std::move(state));
}

Status write_mcp_oauth_file(const std::filesystem::path& file, const nlohmann::json& state) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) return Status::Unavailable("cannot create " + file.parent_path().string() + ": " + ec.message());
  ::chmod(file.parent_path().c_str(), 0700);
  const std::filesystem::path temp = file.string() + "." + detail::random_hex(6) + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Status::Unavailable("cannot write " + temp.string() + ": " + oauth_errno());
  const std::string text = state.dump(2) + "\n";
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!written || ::rename(temp.c_str(), file.c_str()) != 0) {
    ::unlink(temp.c_str());
    return Status::Unavailable("cannot write " + file.string() + ": " + oauth_errno());
  }
  return Status::Ok();
}

void attach_mcp_oauth_files(McpClientHooks& hooks, const std::vector<McpServerConfig>& servers,
                            std::function<void(const std::string&)> warn) {
  std::map<std::string, std::string, std::less<>> urls;
  for (const McpServerConfig& s : servers) urls[s.name] = s.url;
  auto file_of = [urls](std::string_view name) -> Result<std::filesystem::path> {
    auto it = urls.find(name);
    if (it == urls.end()) return Status::NotFound("no MCP server named " + std::string(name));
    return mcp_oauth_file(name, it->second);
  };
  hooks.load_oauth = [file_of, warn](std::string_view name) -> std::optional<nlohmann::json> {
    Result<std::filesystem::path> file = file_of(name);
    if (!file.ok()) return std::nullopt;
    Result<std::optional<nlohmann::json>> state = read_mcp_oauth_file(*file);
    if (!state.ok()) {
      if (warn) warn("MCP server '" + std::string(name) + "': " + state.status().message());
      return std::nullopt;
    }
    return *state;
  };
  hooks.save_oauth = [file_of, warn](std::string_view name, const nlohmann::json& state) {
    Result<std::filesystem::path> file = file_of(name);
    Status s = file.ok() ? write_mcp_oauth_file(*file, state) : file.status();
    if (!s.ok() && warn) warn("MCP server '" + std::string(name) + "': the OAuth sign-in was not saved: " + s.message());
  };
}

}  // namespace keel::assembly
