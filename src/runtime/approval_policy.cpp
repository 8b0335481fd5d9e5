// The approval policy as a gate. Every reason names the rule that decided, because the model
// reads a refusal's reason and a person reads why a call ran without asking.
#include "runtime/approval_policy.hpp"

#include <re2/re2.h>

#include <algorithm>

#include "core/loop/risk_verdict.hpp"

namespace keel::detail {

struct ApprovalPolicyGate::Pattern {
  std::string text;
  std::unique_ptr<RE2> re;
};

struct ApprovalPolicyGate::ToolEntry {
  std::string name;  // a tool name or "*"
  std::optional<ApprovalMode> mode;
  std::vector<Pattern> allow;
  std::vector<Pattern> deny;
  std::string source;
};

namespace {

std::string where(const std::string& key, const std::string& source) {
  return "approvals.tools." + key + (source.empty() ? "" : " in " + source);
}

std::string saved_rule_text(const ApprovalRule& rule) {
  return "a rule saved for this workspace (" + rule.tool +
         (rule.pattern.empty() ? std::string() : " matching '" + rule.pattern + "'") + "; see keel approvals list)";
}

}  // namespace

ApprovalPolicyGate::ApprovalPolicyGate() = default;
ApprovalPolicyGate::~ApprovalPolicyGate() = default;

Result<std::shared_ptr<ApprovalPolicyGate>> ApprovalPolicyGate::create(const ApprovalPolicy& policy, Risk confirm_at,
                                                                        std::span<const ApprovalRule> saved_rules) {
  std::shared_ptr<ApprovalPolicyGate> gate(new ApprovalPolicyGate());
  for (const auto& [name, tool] : policy.tools) {
    ToolEntry entry;
    entry.name = name;
    entry.mode = tool.mode;
    entry.source = tool.source;
    for (const auto& [texts, into, kind] : {std::tuple{&tool.allow_patterns, &entry.allow, "allow_patterns"},
                                            std::tuple{&tool.deny_patterns, &entry.deny, "deny_patterns"}}) {
      for (const std::string& text : *texts) {
        KEEL_TRY(check_approval_pattern(text, where(name, tool.source) + ": " + kind));
        into->push_back(Pattern{text, std::make_unique<RE2>(text, RE2::Quiet)});
      }
    }
    gate->tools_.push_back(std::move(entry));
  }
  gate->default_mode_ = policy.default_mode;
  gate->default_source_ = policy.default_source;
  gate->override_mode_ = policy.override_mode;
  gate->override_source_ = policy.override_source;
  gate->floor_mode_ = policy.floor_mode;
  gate->floor_source_ = policy.floor_source;
  gate->confirm_at_ = confirm_at;
  for (const ApprovalRule& rule : saved_rules) (void)gate->saved_.add(rule);  // an unusable row never matches
  return gate;
}

GateVerdict ApprovalPolicyGate::check(const ToolCall& call, std::string_view canonical_args, const ToolSpec& spec) const {
  std::lock_guard lock(mu_);
  return apply_floor(call, decide(call, canonical_args, spec));
}

GateVerdict ApprovalPolicyGate::apply_floor(const ToolCall& call, GateVerdict verdict) const {
  if (!floor_mode_ || *floor_mode_ == ApprovalMode::kAuto || verdict.kind == GateVerdict::Kind::kDeny) return verdict;
  if (*floor_mode_ == ApprovalMode::kConfirm && verdict.kind == GateVerdict::Kind::kAsk) return verdict;
  std::string from = "approval mode " + std::string(approval_mode_name(*floor_mode_)) + " requested by " +
                     (floor_source_.empty() ? "the client" : floor_source_);
  std::string instead = verdict.reason.empty() ? std::string() : "; the operator's policy alone: " + verdict.reason;
  if (*floor_mode_ == ApprovalMode::kConfirm) {
    return GateVerdict::ask(call.name + " needs confirmation (" + from + instead + ")");
  }
  return GateVerdict::deny(call.name + " is not allowed in this run (" + from + instead + ")");
}

GateVerdict ApprovalPolicyGate::decide(const ToolCall& call, std::string_view canonical_args, const ToolSpec& spec) const {
  std::string subject = approval_subject(call.name, canonical_args);
  std::vector<const ToolEntry*> entries;  // the tool's own entry first, then "*"
  for (const char* name : {call.name.c_str(), "*"}) {
    auto it = std::find_if(tools_.begin(), tools_.end(), [&](const ToolEntry& e) { return e.name == name; });
    if (it != tools_.end() && (entries.empty() || entries.back() != &*it)) entries.push_back(&*it);
  }
  std::string what = call.name == "shell" ? "the command matches" : "the arguments match";
  for (const ToolEntry* e : entries) {
    for (const Pattern& p : e->deny) {
      if (RE2::PartialMatch(subject, *p.re)) {
        return GateVerdict::deny("refused by the approval policy: " + what + " deny pattern '" +
                                 p.text + "' (" + where(e->name, e->source) + ")");
      }
    }
  }
  for (const ToolEntry* e : entries) {
    for (const Pattern& p : e->allow) {
      if (RE2::PartialMatch(subject, *p.re)) {
        return GateVerdict::allow("allowed by the approval policy: " + what + " allow pattern '" +
                                  p.text + "' (" + where(e->name, e->source) + ")");
      }
    }
  }
  if (const ApprovalRule* rule = saved_.match(call.name, subject)) {
    if (rule->verdict == ApprovalVerdict::kDeny) return GateVerdict::deny("refused by " + saved_rule_text(*rule));
    return GateVerdict::allow("allowed by " + saved_rule_text(*rule));
  }
  return by_mode(call, spec);
}

GateVerdict ApprovalPolicyGate::by_mode(const ToolCall& call, const ToolSpec& spec) const {
  std::optional<ApprovalMode> mode = override_mode_;
  std::string source = override_source_.empty() ? "set for this run" : override_source_;
  if (!mode) {
    auto it = std::find_if(tools_.begin(), tools_.end(), [&](const ToolEntry& e) { return e.name == call.name; });
    if (it != tools_.end() && it->mode) {
      mode = it->mode;
      source = where(it->name, it->source);
    } else if (default_mode_) {
      mode = default_mode_;
      source = "approvals.default_mode" + (default_source_.empty() ? "" : " in " + default_source_);
    }
  }
  if (!mode) return detail::risk_verdict(call.name, spec.risk, confirm_at_);
  std::string from = " (approval mode " + std::string(approval_mode_name(*mode)) + ", " + source + ")";
  switch (*mode) {
    case ApprovalMode::kAuto: return GateVerdict::allow("allowed without asking" + from);
    case ApprovalMode::kConfirm: return GateVerdict::ask(call.name + " needs confirmation" + from);
    case ApprovalMode::kDeny: break;
  }
  return GateVerdict::deny(call.name + " is not allowed here" + from);
}

Status ApprovalPolicyGate::remember(const ApprovalRule& rule) {
  std::lock_guard lock(mu_);
  return saved_.add(rule);
}

Result<std::shared_ptr<ApprovalPolicyGate>> load_approval_gate(const ApprovalPolicy& policy, Risk confirm_at,
                                                               Store* store, const std::string& workspace) {
  std::vector<ApprovalRule> rules;
  if (store != nullptr) {
    KEEL_ASSIGN_OR_RETURN(rules, store->list_approval_rules(workspace));
  }
  return ApprovalPolicyGate::create(policy, confirm_at, rules);
}

}  // namespace keel::detail
