// keel/base/sandbox_policy.hpp — how a command keel starts for a model (the shell tool) is
// confined: the mode, the network switch and the cap on processes. Plain settings; the sandbox
// itself (bubblewrap, a seccomp filter and a pids cgroup) is built in src/base/sandbox.cpp.
//
// Modes:
//   workspace-write  (default) the system read-only, the workspace writable, a private /tmp; $HOME,
//                    keel's folders, /run and every other process hidden; no network.
//   read-only        the same, with the workspace read-only too.
//   off              no confinement: the command runs as keel's own user, as before. It still gets
//                    the short, clean environment (base/child_env.hpp), never keel's whole one.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace keel {

enum class SandboxMode { kOff, kReadOnly, kWorkspaceWrite };

// "off", "read-only" or "workspace-write"; nullopt for anything else.
std::optional<SandboxMode> parse_sandbox_mode(std::string_view word);
// The mode's name as parse_sandbox_mode() reads it.
const char* sandbox_mode_name(SandboxMode mode);
// How much a mode confines, for comparing two: off 0 < workspace-write 1 < read-only 2.
int sandbox_strictness(SandboxMode mode);

struct SandboxPolicy {
  SandboxMode mode = SandboxMode::kWorkspaceWrite;
  bool network = false;  // true: the host's network (and its abstract unix sockets) stay reachable
  // Processes (and threads) the command may have at once, its own included; 0: no cap. Enforced
  // with a pids cgroup, or RLIMIT_NPROC when keel does not run as root; see base/process_cap.hpp.
  int max_processes = 256;
  // Folders hidden besides the built-in ones ($HOME, $KEEL_HOME, $XDG_CONFIG_HOME, /tmp, /run).
  std::vector<std::string> hidden_paths;
  // The bubblewrap program; empty: /usr/bin/bwrap, /usr/local/bin/bwrap or /bin/bwrap, the first
  // that exists (never looked up on PATH, which the workspace might shadow).
  std::string bwrap_path;
  // Where the cgroup file systems are mounted; empty: /sys/fs/cgroup. Tests point it elsewhere.
  std::string cgroup_root;
};

}  // namespace keel
