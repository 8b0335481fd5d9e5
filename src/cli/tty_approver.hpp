// Asks the person at the terminal about each call that needs approval:
//   approve shell command=rm -rf build ? [y]es / [n]o / [a]lways for this run:
#pragma once

#include <memory>

#include "keel/approver.hpp"

namespace keel::cli {

// nullptr when there is no terminal to ask (no /dev/tty or stdin is not a TTY).
std::unique_ptr<Approver> make_tty_approver();

}  // namespace keel::cli
