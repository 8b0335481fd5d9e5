// Test helper: runs the keel executable as a subprocess with a clean environment and captures its
// exit code, stdout and stderr separately.
#pragma once

#include <functional>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace keel::testing {

struct CliRun {
  int exit_code = -1;  // the process's exit code; -1 when it could not be run or was killed
  std::string out;     // stdout
  std::string err;     // stderr
  int64_t elapsed_ms = 0;
};

struct CliOptions {
  std::string cwd;                          // working directory (must exist)
  std::map<std::string, std::string> env;   // the whole environment besides PATH and HOME
  int timeout_ms = 30000;                   // killed after this long
  double interrupt_after_s = 0;             // > 0: send SIGINT after this many seconds
  // When set, polled every few milliseconds while keel runs; the first time it returns true keel
  // gets SIGINT. Tests use it to interrupt on an event (the mock received the request), not a time.
  std::function<bool()> interrupt_when;
  // When set, keel runs on a pseudo-terminal (util-linux `script`) that receives this input;
  // stdout and stderr then both arrive in CliRun::out.
  std::optional<std::string> tty_input;
};

// Runs `keel_binary args...`.
CliRun run_cli(const std::string& keel_binary, const std::vector<std::string>& args, const CliOptions& options);

// Parses JSON Lines output into one string per non-empty line.
std::vector<std::string> lines_of(const std::string& text);

}  // namespace keel::testing
