// base/sandbox.hpp — starting one command inside the OS sandbox (keel/base/sandbox_policy.hpp):
// bubblewrap with a seccomp filter (base/seccomp_filter.hpp), in a pids cgroup or under
// RLIMIT_NPROC (base/process_cap.hpp), with the clean environment it is given.
//
// The child keel spawns is a tiny launcher, `/bin/sh -c` that waits on descriptor 3 until keel
// has put it under the process cap (posix_spawn has no hook to run code before exec) and then
// execs bwrap, so everything the command starts is capped from its first fork. bwrap gets only
// the clean environment, so even its own pid 1 (whose /proc/1/environ the command can read)
// holds nothing secret.
//
// What bwrap builds (workspace-write; read-only binds the workspace read-only):
//   --unshare-all (user, pid, net, ipc, uts, cgroup namespaces), --share-net with network: true
//   --die-with-parent --new-session --cap-drop ALL
//   --ro-bind / /   --dev /dev   --proc /proc (a fresh one: only the sandbox's processes)
//   --tmpfs over /tmp, /run, /var/run, $HOME, $KEEL_HOME (keel's database), $XDG_CONFIG_HOME and
//     SandboxPolicy::hidden_paths, parents first
//   --bind WORKSPACE WORKSPACE, then the hidden folders inside the workspace hidden again, and
//     the workspace's keel.yaml and .mcp.json bound read-only (a command must not be able to
//     loosen the next run's configuration)
//   --seccomp 4 -- /bin/sh -c '<marker>; exec /bin/sh -c "$1"' keel-shell COMMAND
// A workspace that is itself one of the hidden folders ($HOME, keel's home, /tmp, ...) is
// refused: the sandbox cannot give access to it without giving access to what it hides.
//
// Fail closed: when bwrap is missing, or exits before the command ran (no user namespaces, a
// mount it cannot make), the command did not run and the error says how to enable the sandbox or
// turn it off. The command's start is proven by a byte it writes on descriptor 5 before exec.
//
// Thread-safety: one SandboxLaunch per call; prepare() may run on several threads at once.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "base/process_cap.hpp"
#include "base/process_spawn.hpp"
#include "keel/base/sandbox_policy.hpp"
#include "keel/result.hpp"

namespace keel::detail {

// The sandbox's bwrap program: policy.bwrap_path, else the first of /usr/bin/bwrap,
// /usr/local/bin/bwrap and /bin/bwrap. FailedPrecondition, with how to install it or turn the
// sandbox off, when there is none.
Result<std::string> find_bwrap(const SandboxPolicy& policy);

// bwrap's arguments up to and including "--seccomp FD" (the command follows), for a command in
// `workspace` (an existing directory). Reads HOME, KEEL_HOME and XDG_CONFIG_HOME from this
// process's environment. FailedPrecondition when the workspace is a folder the sandbox hides.
Result<std::vector<std::string>> bwrap_arguments(const SandboxPolicy& policy, const std::string& workspace,
                                                 int seccomp_fd);

class SandboxLaunch {
 public:
  // Everything for running `command` (with /bin/sh -c) in `workspace` under `policy` with the
  // environment `env`; errors are the ones above, the process cap's and the seccomp filter's.
  static Result<std::unique_ptr<SandboxLaunch>> prepare(const SandboxPolicy& policy, const std::string& workspace,
                                                        const std::string& command, std::vector<std::string> env);
  ~SandboxLaunch();  // closes what is still open; removes the cgroup (killing what is left in it)
  SandboxLaunch(const SandboxLaunch&) = delete;
  SandboxLaunch& operator=(const SandboxLaunch&) = delete;

  // Sets the program, arguments, environment and inherited descriptors of `spawn` (the caller
  // sets the working directory, streams and signals).
  void fill(SpawnRequest& spawn) const;
  // Once the launcher `pid` is spawned: puts it under the process cap and lets it exec bwrap.
  // On error the launcher exits without running bwrap; the caller still reaps it.
  Status start(pid_t pid);
  // Once the launcher has exited: whether the command itself began to run.
  bool command_started();
  // The error for a sandbox that did not start; `output` is what bwrap printed.
  static Status start_failure(const std::string& output);

 private:
  SandboxLaunch() = default;
  std::string launcher_script_;
  std::vector<std::string> argv_;
  std::vector<std::string> env_;
  int gate_read_ = -1, gate_write_ = -1;      // the launcher waits on gate_read_ (its descriptor 3)
  int seccomp_fd_ = -1;                       // bwrap's descriptor 4
  int marker_read_ = -1, marker_write_ = -1;  // the command writes on marker_write_ (its descriptor 5)
  std::unique_ptr<ProcessCap> cap_;           // null: no cap (max_processes 0)
};

// How to enable the sandbox or run without it; ends every sandbox start error.
extern const char* const kSandboxHowTo;

}  // namespace keel::detail
