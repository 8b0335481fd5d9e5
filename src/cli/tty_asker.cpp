#include "cli/tty_asker.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace keel::cli {
namespace {

constexpr int kAttempts = 3;
constexpr size_t kMaxLineBytes = 64 * 1024;

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

enum class ReadEnd { kLine, kEof, kStopped, kError };

// Reads one line (without its newline) a byte at a time, so nothing after it is consumed; wakes
// every 100 ms to honour `stop`.
ReadEnd read_line(int fd, std::string& line, const std::stop_token& stop) {
  for (;;) {
    if (stop.stop_requested()) return ReadEnd::kStopped;
    pollfd p{fd, POLLIN, 0};
    const int n = ::poll(&p, 1, 100);
    if (n == 0) continue;
    if (n < 0) {
      if (errno == EINTR) continue;
      return ReadEnd::kError;
    }
    char c = 0;
    const ssize_t got = ::read(fd, &c, 1);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got < 0) return ReadEnd::kError;
    if (got == 0) return line.empty() ? ReadEnd::kEof : ReadEnd::kLine;
    if (c == '\n') return ReadEnd::kLine;
    if (line.size() < kMaxLineBytes) line.push_back(c);
  }
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// The option a line picks by number (1-based on screen), if it is one.
std::optional<size_t> picked(const std::string& answer, size_t options) {
  if (answer.empty() || answer.size() > 3 || answer.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  const size_t n = static_cast<size_t>(std::strtoul(answer.c_str(), nullptr, 10));
  if (n < 1 || n > options) return std::nullopt;
  return n - 1;
}

std::string prompt_for(const UserQuestion& q) {
  std::string out = "\nask_user: " + q.question + "\n";
  for (size_t i = 0; i < q.options.size(); ++i) out += "  " + std::to_string(i + 1) + ") " + q.options[i] + "\n";
  if (q.options.empty()) return out + "answer: ";
  return out + (q.allow_free_text ? "answer (a number, or your own words): "
                                  : "answer (1-" + std::to_string(q.options.size()) + "): ");
}

}  // namespace

Result<UserAnswer> TtyAsker::ask(const UserQuestion& question, std::stop_token stop) {
  std::lock_guard lock(mu_);
  std::string prompt = prompt_for(question);
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    write_all(out_fd_, prompt);
    std::string line;
    switch (read_line(in_fd_, line, stop)) {
      case ReadEnd::kStopped: return Status::Cancelled("the question was cancelled before the user answered");
      case ReadEnd::kEof: return Status::FailedPrecondition("the input ended without an answer");
      case ReadEnd::kError: return Status::FailedPrecondition("cannot read the answer from the terminal");
      case ReadEnd::kLine: break;
    }
    const std::string answer = trim(line);
    if (answer.empty()) return Status::FailedPrecondition("the user gave an empty answer");
    if (const std::optional<size_t> index = picked(answer, question.options.size())) {
      UserAnswer a;
      a.text = question.options[*index];
      a.option_index = index;
      return a;
    }
    bool is_option = false;
    for (const std::string& o : question.options) is_option = is_option || o == answer;
    if (question.allow_free_text || is_option) {
      UserAnswer a;
      a.text = answer;
      return a;
    }
    prompt = "please answer with a number from 1 to " + std::to_string(question.options.size()) + ": ";
  }
  return Status::FailedPrecondition("the user's answers matched none of the options");
}

std::shared_ptr<UserAsker> make_tty_asker() {
  if (!::isatty(STDIN_FILENO)) return nullptr;
  return std::make_shared<TtyAsker>(STDIN_FILENO, STDERR_FILENO);
}

}  // namespace keel::cli
