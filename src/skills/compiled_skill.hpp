// An executable skill prepared for running: its schemas compiled and its skipWhen conditions
// parsed once, when the runner is created.
//
// Thread-safety: immutable after compile_skill(); shared by the pool's workers.
#pragma once

#include <memory>
#include <vector>

#include "keel/core/skill_graph.hpp"
#include "keel/executable_skill.hpp"
#include "keel/result.hpp"
#include "tools/schema_validator.hpp"

namespace keel::detail {

struct CompiledSkill {
  ExecutableSkill skill;
  std::shared_ptr<const CompiledSchema> input_schema;   // null: any JSON object
  std::shared_ptr<const CompiledSchema> output_schema;  // never null
  std::vector<SkipCondition> skip_when;

  const SkillManifest& manifest() const { return skill.manifest; }
  const std::string& id() const { return skill.manifest.id; }
};

// InvalidArgument naming the skill when a schema or condition does not compile (built-in skills
// skip parse_skill_manifest(), so this is where their mistakes show).
Result<std::shared_ptr<const CompiledSkill>> compile_skill(ExecutableSkill skill);

}  // namespace keel::detail
