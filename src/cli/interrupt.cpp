#include "cli/interrupt.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <thread>

namespace keel::cli {
namespace {

int g_pipe[2] = {-1, -1};
volatile sig_atomic_t g_interrupts = 0;

// Async-signal-safe: only a write to the self-pipe, or _exit on the second signal.
void on_signal(int) {
  g_interrupts = g_interrupts + 1;
  if (g_interrupts > 1) _exit(130);
  char c = 1;
  (void)!::write(g_pipe[1], &c, 1);
}

}  // namespace

std::stop_token install_interrupt_handler() {
  static std::stop_source source;
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return source.get_token();
  if (::pipe2(g_pipe, O_CLOEXEC) != 0) return source.get_token();
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  std::thread([] {
    char c;
    while (::read(g_pipe[0], &c, 1) < 0 && errno == EINTR) {
    }
    source.request_stop();
  }).detach();
  return source.get_token();
}

}  // namespace keel::cli
