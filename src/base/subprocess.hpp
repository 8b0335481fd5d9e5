// base/subprocess.hpp — runs `/bin/sh -c <command>` with a deadline, a stop token and captured,
// size-limited output. Used by the shell tool.
//
// The child is started by spawn_process (base/process_spawn.hpp) in its own process group, with
// the given working directory, stdin from /dev/null, default signal dispositions and an empty
// signal mask. stdout and stderr are read through two pipes with poll() and merged in arrival
// order. Output beyond `max_output_bytes` is read and discarded, so the child never
// blocks on a full pipe, and only counted.
//
// Ending: when the shell exits, output still in the pipes is drained for a short while and then
// the whole process group is killed, so background jobs the command left behind do not outlive
// it. On deadline or stop request the group gets SIGTERM, then SIGKILL after 200 ms if the shell
// has not exited. Every child is reaped with waitpid(); group members that were re-parented to
// this process (only when it is a child subreaper) are reaped too.
//
// Environment: exactly `env` (by default the clean one of base/child_env.hpp), never keel's whole
// environment.
//
// Sandbox: with `sandbox` set (and not mode off) the command runs inside the OS sandbox of
// base/sandbox.hpp; an error Status, naming how to enable it or turn it off, when the sandbox
// cannot start, and then the command did not run. Inside it `$$` and other pids are those of
// the sandbox's own pid namespace, and a command killed by a signal reports exit code 128+N
// (bwrap's), not kSignaled.
//
// Thread-safety: run_subprocess() is safe to call from several threads at once.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "base/child_env.hpp"
#include "keel/base/sandbox_policy.hpp"

#include "keel/result.hpp"

namespace keel::detail {

struct SubprocessRequest {
  std::string command;                   // passed to /bin/sh -c
  std::string cwd;                       // working directory of the child
  std::chrono::milliseconds timeout{60000};
  size_t max_output_bytes = 64 * 1024;   // captured output is cut here
  std::stop_token stop;                  // a stop request ends the child like a timeout
  std::vector<std::string> env = clean_environment({}, {});  // the child's whole environment
  std::optional<SandboxPolicy> sandbox;  // unset (or mode off): unconfined
  // Written to the child's stdin, which is then closed; empty: stdin is /dev/null. A child that
  // exits without reading it all is not an error.
  std::string input = {};
  // Keep stderr apart (SubprocessResult::error_output) instead of merging it into `output`.
  bool separate_stderr = false;
};

struct SubprocessResult {
  enum class End { kExited, kSignaled, kTimedOut, kCancelled };
  End end = End::kExited;
  int exit_code = 0;       // kExited
  int signal = 0;          // kSignaled: the signal that ended the shell
  std::string output;      // merged stdout and stderr (stdout only with separate_stderr), at most max_output_bytes
  std::string error_output;  // separate_stderr: stderr, at most max_output_bytes
  size_t total_bytes = 0;  // bytes the child wrote in all
  bool truncated = false;  // total_bytes > output.size()
  pid_t pgid = 0;          // the child's process group (its pid)
  int64_t elapsed_ms = 0;
};

// Runs the command to its end. An error Status only when it could not be started (no pipes, no
// /bin/sh, a bad cwd, a sandbox that cannot start); timeouts and non-zero exits are reported in
// the result.
Result<SubprocessResult> run_subprocess(const SubprocessRequest& request);

}  // namespace keel::detail
