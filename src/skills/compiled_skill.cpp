#include "skills/compiled_skill.hpp"

#include "core/text/text_util.hpp"

namespace keel::detail {

Result<std::shared_ptr<const CompiledSkill>> compile_skill(ExecutableSkill skill) {
  auto c = std::make_shared<CompiledSkill>();
  const std::string id = skill.manifest.id;
  if (!skill.manifest.input_schema.empty()) {
    auto in = CompiledSchema::compile(skill.manifest.input_schema);
    if (!in.ok()) return Status::InvalidArgument(concat({"skill '", id, "': inputSchema: ", in.status().message()}));
    c->input_schema = std::move(in).value();
  }
  if (skill.manifest.output_schema.empty()) {
    return Status::InvalidArgument(concat({"skill '", id, "' has no outputSchema"}));
  }
  auto out = CompiledSchema::compile(skill.manifest.output_schema);
  if (!out.ok()) return Status::InvalidArgument(concat({"skill '", id, "': outputSchema: ", out.status().message()}));
  c->output_schema = std::move(out).value();
  for (const std::string& text : skill.manifest.skip_when) {
    Result<SkipCondition> cond = parse_skip_condition(text);
    if (!cond.ok()) return Status::InvalidArgument(concat({"skill '", id, "': ", cond.status().message()}));
    c->skip_when.push_back(std::move(cond).value());
  }
  c->skill = std::move(skill);
  return std::shared_ptr<const CompiledSkill>(std::move(c));
}

}  // namespace keel::detail
