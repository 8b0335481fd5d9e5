// Saved approval rules: a workspace's standing "always allow" / "deny" answers for a tool,
// optionally narrowed by a regular expression over the call's canonical arguments.
#pragma once

#include <span>

#include "keel/message.hpp"
#include "keel/store/records.hpp"

namespace keel::detail {

// The rule that decides `call`, or nullptr. A deny rule wins over an allow rule; a rule with a
// pattern applies when the pattern (RE2, partial match) matches the canonical arguments; a
// pattern that does not compile never matches.
const ApprovalRule* matching_rule(std::span<const ApprovalRule> rules, const ToolCall& call);

}  // namespace keel::detail
