#include "support/cli_runner.hpp"

#include <signal.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/temp_dir.hpp"
#include "base/subprocess.hpp"

namespace keel::testing {
namespace {

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out.push_back(c);
  }
  return out + "'";
}

}  // namespace

CliRun run_cli(const std::string& keel_binary, const std::vector<std::string>& args, const CliOptions& options) {
  TempDir capture;
  std::string keel = "env -i PATH=/usr/bin:/bin HOME=" + quote(capture.path().string());
  for (const auto& [k, v] : options.env) keel += " " + quote(k + "=" + v);
  keel += " " + quote(keel_binary);
  for (const auto& a : args) keel += " " + quote(a);
  std::string command;
  if (options.tty_input) {
    command = "printf '%s' " + quote(*options.tty_input) + " | script -qefc " + quote(keel) + " /dev/null";
  } else {
    // $$ is the shell, which becomes keel through exec (env execs too): its pid is keel's.
    if (options.interrupt_when) command = "echo $$ >" + quote((capture.path() / "pid").string()) + "; ";
    command += "exec ";
    if (options.interrupt_after_s > 0) {
      command += "timeout --preserve-status -s INT " + std::to_string(options.interrupt_after_s) + " ";
    }
    command += keel;
  }
  command += " >" + quote((capture.path() / "out").string()) + " 2>" + quote((capture.path() / "err").string());

  detail::SubprocessRequest req;
  req.command = command;
  req.cwd = options.cwd.empty() ? capture.path().string() : options.cwd;
  req.timeout = std::chrono::milliseconds(options.timeout_ms);
  CliRun run;
  std::atomic<bool> done{false};
  std::thread interrupter;
  if (options.interrupt_when) {
    interrupter = std::thread([&] {
      const std::filesystem::path pid_file = capture.path() / "pid";
      while (!done.load()) {
        pid_t pid = 0;
        if (std::ifstream in(pid_file); in) in >> pid;
        if (pid > 0 && options.interrupt_when()) {
          ::kill(pid, SIGINT);
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    });
  }
  auto result = detail::run_subprocess(req);
  done.store(true);
  if (interrupter.joinable()) interrupter.join();
  if (result.ok()) {
    run.elapsed_ms = result->elapsed_ms;
    if (result->end == detail::SubprocessResult::End::kExited) run.exit_code = result->exit_code;
  }
  run.out = read_file(capture.path() / "out");
  run.err = read_file(capture.path() / "err");
  return run;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    if (nl > start) out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

}  // namespace keel::testing
