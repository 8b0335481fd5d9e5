// What the risk threshold alone says about a call when nothing else decides it (no approval gate,
// no approval mode for the tool): run it below `threshold`, ask at or above it. The one place the
// wording of that question lives: the core's default, the approval policy and the hooks' gate use it.
//
// Thread-safety: a pure function.
#pragma once

#include <string_view>

#include "keel/core/approval_gate.hpp"
#include "keel/tool_spec.hpp"

namespace keel::detail {

// allow() below `threshold`; else ask("TOOL is a RISK-risk tool").
GateVerdict risk_verdict(std::string_view tool, Risk risk, Risk threshold);

}  // namespace keel::detail
