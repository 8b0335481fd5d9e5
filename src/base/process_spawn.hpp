// base/process_spawn.hpp — the one way keel starts a child process: posix_spawn (safe in a
// multithreaded process) with pipes or /dev/null for the standard streams, a given environment
// and working directory, optionally its own process group, default signal dispositions and an
// empty signal mask. Used by the shell tool's runner (base/subprocess) and the stdio MCP
// transport; each puts failures in its own words.
//
// Descriptor hygiene: every pipe is made close-on-exec; the child's ends are dup2'ed onto 0, 1
// and 2 (which clears the flag on the copies) and closed in this process once the child runs.
// Where glibc has posix_spawn_file_actions_addclosefrom_np (2.34+), descriptors above 2 that were
// opened without O_CLOEXEC are closed in the child too, so it inherits only its standard streams
// and the descriptors a request lists in inherited_fds, each at the number it asks for.
//
// Thread-safety: free functions without shared state; safe from any thread.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "keel/result.hpp"

namespace keel::detail {

// What one standard stream of the child is connected to.
enum class ChildStream {
  kNull,  // /dev/null (read-only for stdin, write-only for stdout and stderr)
  kPipe,  // a pipe whose other end this process gets back
};

// Why spawn_process() could not start the child.
struct SpawnFailure {
  enum class Step { kPipe, kSpawn };
  Step step = Step::kSpawn;
  const char* stream = "";  // kPipe: "stdin", "stdout" or "stderr"
  int error = 0;            // the errno value
};

// One more descriptor the child gets: `fd` of this process appears as `target` in the child
// (e.g. a seccomp filter handed to bwrap). `fd` stays open here; the caller closes it.
struct InheritedFd {
  int fd = -1;
  int target = -1;  // 3 or more; unique within a request
};

struct SpawnRequest {
  std::string program;            // path of the executable; not looked up on PATH (see find_program)
  std::vector<std::string> argv;  // argv[0] first
  std::vector<std::string> env;   // the child's whole environment, "NAME=value" each
  std::string cwd;                // working directory of the child; empty: this process's
  ChildStream stdin_stream = ChildStream::kNull;
  ChildStream stdout_stream = ChildStream::kPipe;
  ChildStream stderr_stream = ChildStream::kPipe;
  bool new_process_group = true;  // the child leads a new group (its pid), so the tree can be signalled
  // Signals the child starts with at their default disposition (handled ones are reset by exec
  // anyway; this undoes ignored ones). Empty: every signal.
  std::vector<int> default_signals;
  // Descriptors passed on besides the standard streams; every other one is closed in the child.
  std::vector<InheritedFd> inherited_fds;
  // Turns a failure into the Status spawn_process() returns; unset: a generic message.
  std::function<Status(const SpawnFailure&)> describe_failure;
};

// A started child: its pid (also its process group id with new_process_group) and this process's
// ends of its pipes, -1 for a stream that is not a pipe. The ends are close-on-exec and
// non-blocking; the caller closes them and reaps the child.
struct SpawnedProcess {
  pid_t pid = -1;
  int stdin_fd = -1;   // write end of the child's stdin
  int stdout_fd = -1;  // read end of the child's stdout
  int stderr_fd = -1;  // read end of the child's stderr
};

// Starts the child. On failure nothing is left open and the Status is describe_failure's.
Result<SpawnedProcess> spawn_process(const SpawnRequest& request);

// Finds `command` the way a shell would: as given when it contains '/', else in each directory of
// `path_value` (colon-separated; an empty entry is the current directory). Relative results are
// checked against `cwd` when it is set (the child runs there). nullopt when there is no executable
// regular file.
std::optional<std::string> find_program(const std::string& command, const std::string& path_value,
                                        const std::string& cwd);

// How a reaped child ended, in words: "exited with code 3", "was killed by signal 9 (SIGKILL)";
// -1 (reaped elsewhere) says the status is unknown.
std::string describe_wait_status(int status);

}  // namespace keel::detail
