// A git source: the commits that appear on the repository's HEAD. The newest commit seen is kept
// in the store (daemon status "autopilot.git.NAME"), so commits made while keel was not running
// are still reported; the first poll of a new source only notes where HEAD is.
#include <filesystem>
#include <sstream>

#include "autopilot/observation_source.hpp"
#include "base/subprocess.hpp"

namespace keel::detail {
namespace {

constexpr int64_t kGitEveryMs = 10000;
constexpr int kMaxCommits = 50;  // per poll; older ones are beyond what a person wants as observations

class GitSource final : public ObservationSource {
 public:
  GitSource(const AutopilotSourceConfig& config, const SourceEnv& env)
      : ObservationSource(config), clock_(config.every_ms > 0 ? config.every_ms : kGitEveryMs), store_(env.store),
        workspace_(env.workspace) {
    std::filesystem::path p(config.path.empty() ? "." : config.path);
    repo_ = (p.is_absolute() ? p : std::filesystem::path(env.workspace) / p).lexically_normal().string();
    key_ = "autopilot.git." + config.name;
  }

  bool due(int64_t now_ms) const override { return clock_.due(now_ms); }

  Result<std::vector<Finding>> poll(int64_t now_ms, std::stop_token stop) override {
    clock_.polled(now_ms);
    if (!loaded_) KEEL_TRY(load_seen());
    SubprocessRequest req;
    // Run in the repository: its path never passes through the shell.
    req.command = "git log --format=%H%x09%an%x09%s -n " + std::to_string(kMaxCommits) + " HEAD";
    req.cwd = repo_;
    req.timeout = std::chrono::milliseconds(config().timeout_ms);
    req.stop = stop;
    req.separate_stderr = true;
    KEEL_ASSIGN_OR_RETURN(SubprocessResult r, run_subprocess(req));
    if (r.end == SubprocessResult::End::kTimedOut) {
      return Status::DeadlineExceeded("git log in " + repo_ + " took longer than " + std::to_string(config().timeout_ms) + " ms");
    }
    if (r.end != SubprocessResult::End::kExited || r.exit_code != 0) {
      std::string why = r.error_output.empty() ? r.output : r.error_output;
      while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
      return Status::Unavailable("git log in " + repo_ + " failed: " + why);
    }
    std::vector<Finding> fresh;
    std::istringstream lines(r.output);
    std::string line, newest;
    while (std::getline(lines, line)) {
      const size_t a = line.find('\t');
      const size_t b = a == std::string::npos ? a : line.find('\t', a + 1);
      if (b == std::string::npos) continue;
      const std::string hash = line.substr(0, a);
      if (newest.empty()) newest = hash;
      if (hash == seen_) break;
      Finding f;
      f.fingerprint = "git:" + hash;
      f.kind = "git";
      f.subject = line.substr(b + 1);
      f.payload = {{"commit", hash}, {"author", line.substr(a + 1, b - a - 1)}, {"subject", f.subject},
                   {"repository", repo_}};
      fresh.push_back(std::move(f));
    }
    if (newest.empty()) return std::vector<Finding>{};
    const bool first = seen_.empty();
    if (newest != seen_) {
      seen_ = newest;
      nlohmann::json doc = {{"head", seen_}};
      if (store_ != nullptr) KEEL_TRY(store_->put_daemon_status(workspace_, key_, doc.dump()));
    }
    if (first) return std::vector<Finding>{};  // a new source starts from HEAD
    return std::vector<Finding>(fresh.rbegin(), fresh.rend());  // oldest first
  }

 private:
  Status load_seen() {
    loaded_ = true;
    if (store_ == nullptr) return Status::Ok();
    KEEL_ASSIGN_OR_RETURN(std::optional<std::string> doc, store_->get_daemon_status(workspace_, key_));
    if (!doc) return Status::Ok();
    nlohmann::json j = nlohmann::json::parse(*doc, nullptr, false);
    if (j.is_object() && j.contains("head") && j["head"].is_string()) seen_ = j["head"].get<std::string>();
    return Status::Ok();
  }

  PollClock clock_;
  Store* store_;
  std::string workspace_;
  std::string repo_;
  std::string key_;
  std::string seen_;
  bool loaded_ = false;
};

}  // namespace

std::unique_ptr<ObservationSource> make_git_source(const AutopilotSourceConfig& config, const SourceEnv& env) {
  return std::make_unique<GitSource>(config, env);
}

}  // namespace keel::detail
