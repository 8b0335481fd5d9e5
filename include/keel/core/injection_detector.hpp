// keel/core/injection_detector.hpp — flags tool output that looks like a prompt injection.
//
// Tool outputs are untrusted (web pages, files, command output). Flagged output is still passed to
// the model; the agent adds a safety note to the next continuation prompt (seed 000). Detected:
// instruction-override phrases ("ignore previous instructions" and variants), embedded role tags
// (<system>, <assistant>, <human>, chat-template tokens) and persona directives ("you are now ...",
// "from now on you ..."). Matching is case-insensitive and linear in the input size.
//
// Thread-safety: pure function.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace keel {

struct InjectionScan {
  bool flagged = false;
  std::vector<std::string> signals;  // what matched, e.g. "instruction override: ignore previous instructions"
};

InjectionScan scan_for_injection(std::string_view text);

}  // namespace keel
