// Names of skill approval modes, as skill.json spells them.
#include "keel/executable_skill.hpp"

namespace keel {

std::string_view skill_approval_mode_name(SkillApprovalMode mode) {
  switch (mode) {
    case SkillApprovalMode::kAdvisory: return "advisory";
    case SkillApprovalMode::kProposal: return "proposal";
    case SkillApprovalMode::kAutoRunEligible: return "auto-run-eligible";
  }
  return "advisory";
}

std::optional<SkillApprovalMode> parse_skill_approval_mode(std::string_view name) {
  for (SkillApprovalMode m :
       {SkillApprovalMode::kAdvisory, SkillApprovalMode::kProposal, SkillApprovalMode::kAutoRunEligible}) {
    if (skill_approval_mode_name(m) == name) return m;
  }
  return std::nullopt;
}

}  // namespace keel
