// The executable skills keel ships.
#include "keel/executable_skill.hpp"

namespace keel {

std::vector<ExecutableSkill> builtin_executable_skills() { return {}; }

}  // namespace keel
