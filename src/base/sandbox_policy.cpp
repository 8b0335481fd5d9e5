// The sandbox modes' names; see keel/base/sandbox_policy.hpp.
#include "keel/base/sandbox_policy.hpp"

namespace keel {

std::optional<SandboxMode> parse_sandbox_mode(std::string_view word) {
  if (word == "off") return SandboxMode::kOff;
  if (word == "read-only") return SandboxMode::kReadOnly;
  if (word == "workspace-write") return SandboxMode::kWorkspaceWrite;
  return std::nullopt;
}

const char* sandbox_mode_name(SandboxMode mode) {
  switch (mode) {
    case SandboxMode::kOff:
      return "off";
    case SandboxMode::kReadOnly:
      return "read-only";
    case SandboxMode::kWorkspaceWrite:
      break;
  }
  return "workspace-write";
}

int sandbox_strictness(SandboxMode mode) {
  switch (mode) {
    case SandboxMode::kOff:
      return 0;
    case SandboxMode::kWorkspaceWrite:
      return 1;
    case SandboxMode::kReadOnly:
      break;
  }
  return 2;
}

}  // namespace keel
