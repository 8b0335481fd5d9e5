// base/process_cap.hpp — a cap on the number of processes one sandboxed command may have at once,
// so a fork bomb stops at the cap instead of taking the machine down.
//
// Mechanisms, the first that works:
//   1. a pids cgroup of its own (pids.max = the cap), created for the call and removed after it:
//      cgroup v2 when <root>/cgroup.controllers lists pids and the cgroup keel is in (or, for
//      root, the top one) delegates pids to its children; else cgroup v1 at <root>/pids. Every
//      process left in it is killed when the call ends.
//   2. RLIMIT_NPROC on the command, when keel does not run as root (the kernel ignores it for
//      root). It counts all processes of the user, so it is set to the user's current count plus
//      the cap.
// When neither works (root, and no writable pids cgroup, as in a container with a read-only
// /sys/fs/cgroup), create() fails: the operator asked for a cap, and running without one quietly
// would be the same as not sandboxing quietly. The message says how to get one, or to set
// tools.shell.max_processes: 0 to run without a cap.
//
// Thread-safety: one ProcessCap per call; create() may run on several threads at once.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "keel/result.hpp"

namespace keel::detail {

class ProcessCap {
 public:
  // A cap of `max_processes` (>= 1), with cgroups looked for under `cgroup_root` (empty:
  // /sys/fs/cgroup). FailedPrecondition when no mechanism is available.
  static Result<std::unique_ptr<ProcessCap>> create(int max_processes, const std::string& cgroup_root);
  ~ProcessCap();  // kills what is left in the cgroup and removes it
  ProcessCap(const ProcessCap&) = delete;
  ProcessCap& operator=(const ProcessCap&) = delete;

  // Puts `pid` (not yet running anything it was not trusted with) under the cap; its children
  // inherit it.
  Status attach(pid_t pid);
  // "cgroup v1 /sys/fs/cgroup/pids/...", "cgroup v2 ...", or "RLIMIT_NPROC": for messages.
  const std::string& mechanism() const { return mechanism_; }

 private:
  ProcessCap() = default;
  std::string cgroup_dir_;  // empty: RLIMIT_NPROC
  bool cgroup_v2_ = false;
  unsigned long rlimit_ = 0;
  std::string mechanism_;
};

}  // namespace keel::detail
