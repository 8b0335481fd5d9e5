// The executable skills keel ships.
#include <vector>

#include "keel/executable_skill.hpp"
#include "skills/extract_skill.hpp"

namespace keel {

std::vector<ExecutableSkill> builtin_executable_skills() {
  std::vector<ExecutableSkill> skills;
  skills.push_back(make_extract_skill());
  return skills;
}

}  // namespace keel
