#include "cli/tty_approver.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <string>

#include "cli/text_output.hpp"

namespace keel::cli {
namespace {

// Thread-safety: used by one run at a time.
class TtyApprover final : public Approver {
 public:
  explicit TtyApprover(int fd) : fd_(fd) {}
  ~TtyApprover() override { ::close(fd_); }

  std::vector<ApprovalDecision> decide(const std::vector<ApprovalRequest>& requests, std::stop_token stop) override {
    std::vector<ApprovalDecision> out;
    for (const auto& r : requests) {
      std::string prompt = "approve " + r.call.name + " " + short_arguments(r.call.arguments, 200) + " (" + r.reason +
                           ")? [y]es / [n]o / [a]lways for this run: ";
      ApprovalDecision d{r.call.id, ApprovalVerdict::kDeny, "denied by the user"};
      for (;;) {
        (void)!::write(fd_, prompt.data(), prompt.size());
        std::string line;
        if (!read_line(line, stop)) {
          d.reason = stop.stop_requested() ? "interrupted" : "no answer from the terminal";
          break;
        }
        char c = line.empty() ? '\0' : static_cast<char>(std::tolower(static_cast<unsigned char>(line[0])));
        if (c == 'y') d = {r.call.id, ApprovalVerdict::kAllow, "approved by the user"};
        else if (c == 'a') d = {r.call.id, ApprovalVerdict::kAllowAlways, "approved by the user for this run"};
        else if (c != 'n') continue;
        break;
      }
      out.push_back(d);
      if (stop.stop_requested()) break;
    }
    return out;
  }

 private:
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
};

}  // namespace

std::unique_ptr<Approver> make_tty_approver() {
  if (!::isatty(STDIN_FILENO)) return nullptr;
  int fd = ::open("/dev/tty", O_RDWR | O_CLOEXEC);
  if (fd < 0) return nullptr;
  return std::make_unique<TtyApprover>(fd);
}

}  // namespace keel::cli
