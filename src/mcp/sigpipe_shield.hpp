// mcp/sigpipe_shield.hpp — keeps a write to a pipe whose reader is gone from raising SIGPIPE in
// this process, whatever the host's SIGPIPE disposition (keel sets none globally).
//
//   SigpipeShield shield;                      // SIGPIPE blocked for this thread
//   if (::write(fd, ...) < 0 && errno == EPIPE) shield.raised();
//   // on scope exit the SIGPIPE this thread caused is consumed and the mask restored
//
// A SIGPIPE from write() is directed at the writing thread, so blocking it there and taking it off
// the pending set before unblocking leaves every other thread unaffected.
//
// Thread-safety: one object per writing thread, on its stack.
#pragma once

#include <pthread.h>
#include <signal.h>

#include <cerrno>
#include <ctime>

namespace keel::mcp::detail {

class SigpipeShield {
 public:
  SigpipeShield() {
    sigemptyset(&pipe_set_);
    sigaddset(&pipe_set_, SIGPIPE);
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;  // not ours: left alone
    pthread_sigmask(SIG_BLOCK, &pipe_set_, &old_);
  }
  ~SigpipeShield() {
    if (raised_ && !was_pending_) {
      const timespec zero{0, 0};
      while (sigtimedwait(&pipe_set_, nullptr, &zero) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeShield(const SigpipeShield&) = delete;
  SigpipeShield& operator=(const SigpipeShield&) = delete;

  // Tells the shield that a write failed with EPIPE, so a SIGPIPE is pending for this thread.
  void raised() { raised_ = true; }

 private:
  sigset_t pipe_set_;
  sigset_t old_;
  bool was_pending_ = false;
  bool raised_ = false;
};

}  // namespace keel::mcp::detail
