// Ctrl-C handling for the CLI: the first SIGINT (or SIGTERM) requests a clean stop of the run
// through a stop token; a second one exits at once with code 130.
#pragma once

#include <stop_token>

namespace keel::cli {

// Installs the handlers and starts a small watcher thread. Call once, early in main().
// Thread-safety: the returned token may be used from any thread.
std::stop_token install_interrupt_handler();

}  // namespace keel::cli
