#include "runtime/approval_rules.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace keel::detail {

std::string approval_subject(std::string_view tool, std::string_view canonical_args) {
  if (tool == "shell") {
    nlohmann::json args = nlohmann::json::parse(canonical_args, nullptr, false);
    if (args.is_object()) {
      auto command = args.find("command");
      if (command != args.end() && command->is_string()) return command->get<std::string>();
    }
  }
  return std::string(canonical_args);
}

Status check_approval_pattern(const std::string& pattern, const std::string& what) {
  RE2 re(pattern, RE2::Quiet);
  if (re.ok()) return Status::Ok();
  return Status::InvalidArgument(what + " has '" + pattern + "', which is not a valid regular expression (" +
                                 re.error() + ")");
}

SavedRules::SavedRules() = default;
SavedRules::~SavedRules() = default;
SavedRules::SavedRules(SavedRules&&) noexcept = default;
SavedRules& SavedRules::operator=(SavedRules&&) noexcept = default;

Status SavedRules::add(const ApprovalRule& rule) {
  if (rule.verdict != ApprovalVerdict::kAllow && rule.verdict != ApprovalVerdict::kDeny) {
    return Status::InvalidArgument("a remembered approval must allow or deny, not " +
                                   std::string(approval_verdict_name(rule.verdict)));
  }
  if (rule.tool.empty()) return Status::InvalidArgument("a remembered approval needs the tool's name");
  Entry entry;
  entry.rule = rule;
  if (!rule.pattern.empty()) {
    KEEL_TRY(check_approval_pattern(rule.pattern, "the rule for " + rule.tool));
    entry.re = std::make_unique<RE2>(rule.pattern, RE2::Quiet);
  }
  auto same = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) {
    return e.rule.tool == rule.tool && e.rule.pattern == rule.pattern;
  });
  if (same != entries_.end()) {
    *same = std::move(entry);
  } else {
    entries_.push_back(std::move(entry));
  }
  return Status::Ok();
}

const ApprovalRule* SavedRules::match(std::string_view tool, std::string_view subject) const {
  const ApprovalRule* allow = nullptr;
  for (const Entry& e : entries_) {
    if (e.rule.tool != tool) continue;
    if (e.re && !RE2::PartialMatch(subject, *e.re)) continue;
    if (e.rule.verdict == ApprovalVerdict::kDeny) return &e.rule;
    if (allow == nullptr) allow = &e.rule;
  }
  return allow;
}

}  // namespace keel::detail
