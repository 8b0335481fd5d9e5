// A files source: new or changed files of one folder (not its sub-folders) whose names match the
// globs. inotify reports files as they are written or moved in; a full scan at start (and every
// 30 s) catches what arrived while keel was not running. The fingerprint is the name with the
// content's hash, so the same file dropped again is the same observation, and a changed one is new.
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "autopilot/observation_source.hpp"
#include "core/text/utf8_text.hpp"

namespace keel::detail {
namespace {

constexpr int64_t kRescanMs = 30000;
constexpr size_t kMaxHashedBytes = 8u << 20;  // beyond this, the head and the size stand for the file
constexpr size_t kMaxTextBytes = 64u << 10;   // text given to the trigger

struct FileRead {
  std::string fingerprint;
  std::string head;  // at most kMaxHashedBytes
  int64_t size = 0;
};

// Reads `path` and computes its fingerprint; an error when it cannot be read.
Result<FileRead> read_for_fingerprint(const std::string& path, const std::string& name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot read " + path + ": " + std::strerror(errno));
  FileRead r;
  r.head.resize(kMaxHashedBytes);
  in.read(r.head.data(), static_cast<std::streamsize>(r.head.size()));
  r.head.resize(static_cast<size_t>(in.gcount()));
  struct stat st {};
  r.size = ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : static_cast<int64_t>(r.head.size());
  std::string keyed = name;
  keyed.push_back('\0');
  keyed.append(r.head);
  if (r.size > static_cast<int64_t>(r.head.size())) keyed.append("\0size:" + std::to_string(r.size));
  r.fingerprint = "file:" + sha256_hex(keyed);
  return r;
}

class FileSource final : public ObservationSource {
 public:
  FileSource(const AutopilotSourceConfig& config, const SourceEnv& env) : ObservationSource(config) {
    workspace_ = env.workspace;
    std::filesystem::path p(config.path.empty() ? "." : config.path);
    folder_ = (p.is_absolute() ? p : std::filesystem::path(env.workspace) / p).lexically_normal().string();
    if (folder_.size() > 1 && folder_.back() == '/') folder_.pop_back();
    globs_ = config.globs.empty() ? std::vector<std::string>{"*"} : config.globs;
  }
  ~FileSource() override { close_watch(); }

  bool due(int64_t) const override { return true; }  // draining inotify is cheap

  int wake_fd() const override { return fd_; }

  Result<std::vector<Finding>> poll(int64_t now_ms, std::stop_token) override {
    if (fd_ < 0) KEEL_TRY(open_watch());
    std::set<std::string> evented, scanned;
    KEEL_TRY(drain_events(evented));
    if (fd_ < 0 || last_scan_ms_ < 0 || now_ms - last_scan_ms_ >= kRescanMs) {
      if (fd_ < 0) KEEL_TRY(open_watch());  // the folder went away and came back
      KEEL_TRY(scan(scanned));
      last_scan_ms_ = now_ms;
    }
    std::set<std::string> names = evented;
    names.insert(scanned.begin(), scanned.end());
    std::vector<Finding> out;
    for (const std::string& name : names) {
      const std::string path = folder_ + "/" + name;
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;  // gone again, or not a file
      // A scan reports only files that changed since this source last read them; a write event
      // always reports (the same file dropped again is a duplicate the store recognises).
      const std::pair<int64_t, int64_t> stamp{static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                                              static_cast<int64_t>(st.st_size)};
      auto known = read_.find(name);
      if (!evented.count(name) && known != read_.end() && known->second == stamp) continue;
      read_[name] = stamp;
      Result<FileRead> r = read_for_fingerprint(path, name);
      if (!r.ok()) continue;  // unreadable file: the next write or scan tries again
      Finding f;
      f.fingerprint = r->fingerprint;
      f.kind = "file";
      f.subject = relative(path);
      f.payload = {{"path", f.subject}, {"name", name}, {"size", r->size}};
      if (r->head.size() <= kMaxTextBytes && !looks_binary(r->head)) f.payload["text"] = sanitize_utf8(r->head);
      out.push_back(std::move(f));
    }
    return out;
  }

  bool still_holds(const Observation& o) const override {
    nlohmann::json p = nlohmann::json::parse(o.payload, nullptr, false);
    if (!p.is_object() || !p.contains("name") || !p["name"].is_string()) return true;
    const std::string name = p["name"].get<std::string>();
    Result<FileRead> r = read_for_fingerprint(folder_ + "/" + name, name);
    return r.ok() && r->fingerprint == o.fingerprint;
  }

 private:
  bool matches(const std::string& name) const {
    if (name.empty() || name[0] == '.') return false;  // hidden and editors' temporary files
    for (const std::string& g : globs_) {
      if (::fnmatch(g.c_str(), name.c_str(), FNM_PERIOD) == 0) return true;
    }
    return false;
  }

  std::string relative(const std::string& path) const {
    if (path.size() > workspace_.size() + 1 && path.compare(0, workspace_.size(), workspace_) == 0 &&
        path[workspace_.size()] == '/') {
      return path.substr(workspace_.size() + 1);
    }
    return path;
  }

  Status open_watch() {
    struct stat st {};
    if (::stat(folder_.c_str(), &st) != 0) {
      return Status::NotFound("cannot watch the folder " + folder_ + ": " + std::strerror(errno));
    }
    if (!S_ISDIR(st.st_mode)) return Status::InvalidArgument("cannot watch " + folder_ + ": it is not a folder");
    DIR* probe = ::opendir(folder_.c_str());
    if (probe == nullptr) return Status::PermissionDenied("cannot read the folder " + folder_ + ": " + std::strerror(errno));
    ::closedir(probe);
    fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd_ < 0) return Status::Unavailable(std::string("inotify is not available: ") + std::strerror(errno));
    if (::inotify_add_watch(fd_, folder_.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF) < 0) {
      const std::string why = std::strerror(errno);
      close_watch();
      return Status::Unavailable("cannot watch the folder " + folder_ + ": " + why);
    }
    last_scan_ms_ = -1;
    return Status::Ok();
  }

  void close_watch() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  Status drain_events(std::set<std::string>& names) {
    alignas(inotify_event) char buf[16384];
    while (fd_ >= 0) {
      const ssize_t n = ::read(fd_, buf, sizeof buf);
      if (n <= 0) break;  // EAGAIN: drained
      for (ssize_t off = 0; off < n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(buf + off);
        off += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
        if ((e->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) != 0) {
          close_watch();  // the folder itself is gone: watch it again when it is back
          break;
        }
        if (e->len > 0) {
          std::string name(e->name);
          if (matches(name)) names.insert(std::move(name));
        }
      }
    }
    return Status::Ok();
  }

  Status scan(std::set<std::string>& names) {
    DIR* dir = ::opendir(folder_.c_str());
    if (dir == nullptr) return Status::PermissionDenied("cannot read the folder " + folder_ + ": " + std::strerror(errno));
    while (const dirent* e = ::readdir(dir)) {
      std::string name(e->d_name);
      if (matches(name)) names.insert(std::move(name));
    }
    ::closedir(dir);
    return Status::Ok();
  }

  std::string workspace_;
  std::string folder_;
  std::vector<std::string> globs_;
  int fd_ = -1;
  int64_t last_scan_ms_ = -1;
  std::map<std::string, std::pair<int64_t, int64_t>> read_;  // name → (mtime ns, size) when last read
};

}  // namespace

std::unique_ptr<ObservationSource> make_file_source(const AutopilotSourceConfig& config, const SourceEnv& env) {
  return std::make_unique<FileSource>(config, env);
}

}  // namespace keel::detail
