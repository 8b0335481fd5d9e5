#include "runtime/approval_rules.hpp"

#include <re2/re2.h>

#include <nlohmann/json.hpp>

namespace keel::detail {

const ApprovalRule* matching_rule(std::span<const ApprovalRule> rules, const ToolCall& call) {
  const ApprovalRule* allow = nullptr;
  std::string canonical;
  bool have_canonical = false;
  for (const ApprovalRule& rule : rules) {
    if (rule.tool != call.name) continue;
    if (!rule.pattern.empty()) {
      if (!have_canonical) {
        nlohmann::json args = nlohmann::json::parse(call.arguments, nullptr, false);
        canonical = args.is_discarded() ? call.arguments : args.dump();
        have_canonical = true;
      }
      RE2 re(rule.pattern, RE2::Quiet);
      if (!re.ok() || !RE2::PartialMatch(canonical, re)) continue;
    }
    if (rule.verdict == ApprovalVerdict::kDeny) return &rule;
    if (allow == nullptr) allow = &rule;
  }
  return allow;
}

}  // namespace keel::detail
