// keel_shell_sandbox_bench — what the shell sandbox costs per call.
//
//   keel_shell_sandbox_bench [N]
//
// Runs `true` N times (default 200) through the shell tool's runner (base/subprocess) unconfined
// (sandbox off) and in the default sandbox (workspace-write: bwrap, seccomp filter, pids cgroup),
// alternating the two so both see the same machine load, and prints the median and p90 wall time
// per call of each and the difference. Two more rows show where the time goes: the sandbox without
// the process cap (max_processes 0: no cgroup made and removed) and with the host's network (no
// network namespace to create). Needs bubblewrap, like the sandbox itself.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "base/subprocess.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
  return v[i];
}

// Milliseconds for one call of `true`; negative when the call failed.
double one_call(const keel::detail::SubprocessRequest& req) {
  const auto start = Clock::now();
  auto r = keel::detail::run_subprocess(req);
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (!r.ok()) {
    std::fprintf(stderr, "keel_shell_sandbox_bench: %s\n", r.status().message().c_str());
    return -1;
  }
  if (r->exit_code != 0) {
    std::fprintf(stderr, "keel_shell_sandbox_bench: `true` exited with %d: %s\n", r->exit_code, r->output.c_str());
    return -1;
  }
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
  std::error_code ec;
  const std::filesystem::path ws = std::filesystem::temp_directory_path(ec) / "keel-shell-sandbox-bench";
  std::filesystem::create_directories(ws, ec);

  keel::detail::SubprocessRequest off;
  off.command = "true";
  off.cwd = ws.string();
  keel::detail::SubprocessRequest boxed = off;
  boxed.sandbox = keel::SandboxPolicy{};  // workspace-write, no network, 256 processes

  keel::detail::SubprocessRequest uncapped = boxed;
  uncapped.sandbox->max_processes = 0;
  keel::detail::SubprocessRequest networked = boxed;
  networked.sandbox->network = true;

  std::vector<double> off_ms, boxed_ms, uncapped_ms, networked_ms;
  for (int i = 0; i < 3; ++i) {  // warm-up: page cache, the seccomp programs' first compilation
    if (one_call(off) < 0 || one_call(boxed) < 0 || one_call(networked) < 0) return 1;
  }
  for (int i = 0; i < n; ++i) {
    const double a = one_call(off);
    const double b = one_call(boxed);
    const double c = one_call(uncapped);
    const double d = one_call(networked);
    if (a < 0 || b < 0 || c < 0 || d < 0) return 1;
    off_ms.push_back(a);
    boxed_ms.push_back(b);
    uncapped_ms.push_back(c);
    networked_ms.push_back(d);
  }
  std::filesystem::remove_all(ws, ec);

  const double off_med = percentile(off_ms, 0.5), off_p90 = percentile(off_ms, 0.9);
  const double box_med = percentile(boxed_ms, 0.5), box_p90 = percentile(boxed_ms, 0.9);
  std::printf("shell `true`, %d calls each (wall time per call)\n", n);
  std::printf("  %-16s median %7.2f ms   p90 %7.2f ms\n", "sandbox off", off_med, off_p90);
  std::printf("  %-16s median %7.2f ms   p90 %7.2f ms\n", "workspace-write", box_med, box_p90);
  std::printf("  %-16s median %+7.2f ms   p90 %+7.2f ms\n", "difference", box_med - off_med, box_p90 - off_p90);
  std::printf("where the time goes (workspace-write variants):\n");
  std::printf("  %-16s median %7.2f ms   p90 %7.2f ms\n", "no process cap", percentile(uncapped_ms, 0.5),
              percentile(uncapped_ms, 0.9));
  std::printf("  %-16s median %7.2f ms   p90 %7.2f ms\n", "network: true", percentile(networked_ms, 0.5),
              percentile(networked_ms, 0.9));
  return 0;
}
