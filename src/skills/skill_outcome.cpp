// Names and summaries of skill outcomes.
#include "keel/skill_runner.hpp"

namespace keel {

std::string_view skill_status_name(SkillStatus status) {
  switch (status) {
    case SkillStatus::kSucceeded:
      return "succeeded";
    case SkillStatus::kSkipped:
      return "skipped";
    case SkillStatus::kFailed:
      return "failed";
    case SkillStatus::kBlocked:
      return "blocked";
  }
  return "failed";
}

std::string_view skill_action_state_name(SkillActionState state) {
  switch (state) {
    case SkillActionState::kNone:
      return "none";
    case SkillActionState::kAdvice:
      return "advice";
    case SkillActionState::kQueued:
      return "queued";
    case SkillActionState::kNotQueued:
      return "not_queued";
    case SkillActionState::kExecuted:
      return "executed";
    case SkillActionState::kFailed:
      return "failed";
  }
  return "none";
}

bool SkillGraphResult::ok() const {
  for (const SkillOutcome& o : skills) {
    if (o.status == SkillStatus::kFailed || o.status == SkillStatus::kBlocked) return false;
    if (o.action.state == SkillActionState::kFailed) return false;
  }
  return true;
}

bool SkillGraphResult::backend_failed() const {
  for (const SkillOutcome& o : skills) {
    if (o.backend_failed) return true;
  }
  return false;
}

}  // namespace keel
