// cli/tty_asker.hpp — answers ask_user on the terminal: prints the question and numbered options
// to an output descriptor (stderr) and reads one line from an input descriptor (stdin).
//
//   ask_user: Which environment should I deploy to?
//     1) staging
//     2) production
//   answer (a number, or your own words): 1
//
// A number picks an option; other text is a free answer (when allowed; otherwise the question is
// asked again, up to three times). An empty line or end of input is FailedPrecondition; a
// requested stop is Cancelled within about 100 ms (reads poll).
//
// Thread-safety: ask() may be called from any thread; questions are serialised by a mutex.
// The descriptors are borrowed and must stay open while the asker is used.
#pragma once

#include <memory>
#include <mutex>

#include "keel/ask_user.hpp"

namespace keel::cli {

class TtyAsker final : public UserAsker {
 public:
  // Reads answers from `in_fd`, writes prompts to `out_fd`.
  TtyAsker(int in_fd, int out_fd) : in_fd_(in_fd), out_fd_(out_fd) {}

  Result<UserAnswer> ask(const UserQuestion& question, std::stop_token stop) override;

 private:
  std::mutex mu_;
  int in_fd_;
  int out_fd_;
};

// An asker on stdin/stderr when stdin is a terminal; nullptr otherwise (no one to ask).
std::shared_ptr<UserAsker> make_tty_asker();

}  // namespace keel::cli
