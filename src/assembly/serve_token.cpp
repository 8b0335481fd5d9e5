// The server token kept under KEEL_HOME; see serve_token.hpp.
#include "assembly/serve_token.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/random_token.hpp"
#include "core/text/text_util.hpp"
#include "keel/store/sqlite_store.hpp"

namespace keel::assembly {
namespace {

constexpr size_t kMinTokenChars = 32;

std::string errno_text() { return std::strerror(errno); }

Result<std::string> read_token(const std::filesystem::path& path, int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Status::Unavailable("cannot inspect " + path.string() + ": " + errno_text());
  if (!S_ISREG(st.st_mode)) return Status::FailedPrecondition(path.string() + " is not a regular file; delete it");
  if (st.st_uid != ::geteuid()) {
    return Status::FailedPrecondition(path.string() + " belongs to another user; delete it so keel makes its own");
  }
  if ((st.st_mode & 077) != 0) {
    return Status::FailedPrecondition(path.string() + " can be read or written by other users; run chmod 600 " +
                                      path.string() + " (or delete it for a new token)");
  }
  std::string text(256, '\0');
  const ssize_t n = ::read(fd, text.data(), text.size());
  if (n < 0) return Status::Unavailable("cannot read " + path.string() + ": " + errno_text());
  text.resize(static_cast<size_t>(n));
  std::string token(detail::trim(text));
  const bool printable = token.find_first_of(" \t\r\n#") == std::string::npos;
  if (token.size() < kMinTokenChars || !printable) {
    return Status::FailedPrecondition(path.string() + " holds no usable token (at least " +
                                      std::to_string(kMinTokenChars) +
                                      " characters, no spaces); delete it so keel makes a new one");
  }
  return token;
}

}  // namespace

Result<ServeToken> load_or_create_serve_token(std::filesystem::path path) {
  if (path.empty()) {
    KEEL_ASSIGN_OR_RETURN(std::filesystem::path db, default_store_path());
    path = db.parent_path() / "serve-token";
  }
  ServeToken out;
  out.path = path;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      Result<std::string> token = read_token(path, fd);
      ::close(fd);
      if (!token.ok()) return token.status();
      out.token = std::move(*token);
      return out;
    }
    if (errno != ENOENT) {
      return Status::FailedPrecondition("cannot open " + path.string() + ": " + errno_text() +
                                        (errno == ELOOP ? " (a symbolic link is not accepted; delete it)" : ""));
    }
    const std::string token = detail::random_hex(32);
    const int wfd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (wfd < 0) {
      if (errno == EEXIST) continue;  // another process made it first: read theirs
      return Status::FailedPrecondition("cannot create " + path.string() + ": " + errno_text() +
                                        "; set KEEL_HOME to a writable folder or give --token");
    }
    const std::string line = token + "\n";
    const bool written = ::write(wfd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
    ::close(wfd);
    if (!written) {
      ::unlink(path.c_str());
      return Status::Unavailable("cannot write " + path.string() + "; set KEEL_HOME to a writable folder or give --token");
    }
    out.token = std::move(token);
    out.created = true;
    return out;
  }
  return Status::Unavailable("cannot read or create " + path.string());
}

}  // namespace keel::assembly
