#include "cli/tty_approver.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <map>
#include <string>

#include "cli/text_output.hpp"

namespace keel::cli {
namespace {

// Thread-safety: used by one run at a time.
class TtyApprover final : public Approver {
 public:
  TtyApprover(int fd, RememberApproval remember) : fd_(fd), remember_(std::move(remember)) {}
  ~TtyApprover() override { ::close(fd_); }

  std::vector<ApprovalDecision> decide(const std::vector<ApprovalRequest>& requests, std::stop_token stop) override {
    std::vector<ApprovalDecision> out;
    std::map<std::string, ApprovalDecision> standing;  // "always"/"never" answers of this batch, by tool
    for (const auto& r : requests) {
      if (auto it = standing.find(r.call.name); it != standing.end()) {
        out.push_back({r.call.id, it->second.verdict, it->second.reason});
        continue;
      }
      std::string prompt = "approve " + r.call.name + " " + short_arguments(r.call.arguments, 200) + " (" + r.reason +
                           ")? [y]es / [n]o / [a]lways / ne[v]er (a, v: remembered for this workspace): ";
      ApprovalDecision d{r.call.id, ApprovalVerdict::kDeny, "denied by the user"};
      bool remembered = false;
      for (;;) {
        (void)!::write(fd_, prompt.data(), prompt.size());
        std::string line;
        if (!read_line(line, stop)) {
          d.reason = stop.stop_requested() ? "interrupted" : "no answer from the terminal";
          break;
        }
        char c = line.empty() ? '\0' : static_cast<char>(std::tolower(static_cast<unsigned char>(line[0])));
        if (c == 'y') d = {r.call.id, ApprovalVerdict::kAllow, "approved by the user"};
        else if (c == 'a') d = {r.call.id, ApprovalVerdict::kAllowAlways, "always approved by the user in this workspace"};
        else if (c == 'v') d = never(r, remembered);
        else if (c != 'n') continue;
        if (c == 'a' || (c == 'v' && remembered)) standing[r.call.name] = d;
        break;
      }
      out.push_back(d);
      if (stop.stop_requested()) break;
    }
    return out;
  }

 private:
  // A "never" answer: this call denied and, when `remembered`, every later one in the workspace.
  ApprovalDecision never(const ApprovalRequest& r, bool& remembered) {
    ApprovalDecision d{r.call.id, ApprovalVerdict::kDeny, "the user never allows " + r.call.name + " in this workspace"};
    Status saved = remember_ ? remember_(r.call.name, ApprovalVerdict::kDeny) : Status::FailedPrecondition("no store");
    remembered = saved.ok();
    if (!remembered) {
      std::string note = "keel: could not remember the answer (" + saved.message() + "); denied this once\n";
      (void)!::write(fd_, note.data(), note.size());
      d.reason = "denied by the user";
    }
    return d;
  }

  // Reads one line, waking every 100 ms to honour `stop`. False on EOF, error or stop.
  bool read_line(std::string& line, const std::stop_token& stop) {
    for (;;) {
      if (stop.stop_requested()) return false;
      pollfd p{fd_, POLLIN, 0};
      int n = ::poll(&p, 1, 100);
      if (n == 0) continue;
      if (n < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      char c;
      ssize_t got = ::read(fd_, &c, 1);
      if (got <= 0) return false;
      if (c == '\n') return true;
      line.push_back(c);
    }
  }

  int fd_;
  RememberApproval remember_;
};

class NonInteractiveApprover final : public Approver {
 public:
  std::vector<ApprovalDecision> decide(const std::vector<ApprovalRequest>& requests, std::stop_token) override {
    std::vector<ApprovalDecision> out;
    for (const auto& r : requests) {
      out.push_back({r.call.id, ApprovalVerdict::kDeny,
                     "this call needs approval (" + r.reason +
                         ") and keel is not running in an interactive terminal; to allow it, rerun with --yes, or "
                         "with --approve-mode auto, or allow it in your user config ~/.config/keel/config.yaml (approvals: {tools: {" +
                         r.call.name + ": {mode: auto}}} or allow_patterns), or with `keel approvals add " +
                         r.call.name + " allow`"});
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Approver> make_tty_approver(RememberApproval remember) {
  if (!::isatty(STDIN_FILENO)) return nullptr;
  int fd = ::open("/dev/tty", O_RDWR | O_CLOEXEC);
  if (fd < 0) return nullptr;
  return std::make_unique<TtyApprover>(fd, std::move(remember));
}

std::unique_ptr<Approver> make_non_interactive_approver() { return std::make_unique<NonInteractiveApprover>(); }

}  // namespace keel::cli
