// Trust kept as approval rules (assembly/workspace_trust.hpp).
#include "assembly/workspace_trust.hpp"

namespace keel::assembly {

bool workspace_trusts(Store* store, const std::string& workspace, const std::string& trust_tool,
                      const std::string& fingerprint) {
  if (store == nullptr) return false;
  Result<std::vector<ApprovalRule>> rules = store->list_approval_rules(workspace);
  if (!rules.ok()) return false;
  for (const ApprovalRule& r : *rules) {
    if (r.tool == trust_tool && r.pattern == fingerprint && r.verdict == ApprovalVerdict::kAllow) return true;
  }
  return false;
}

}  // namespace keel::assembly
