// The output pipeline of an executable skill: a reply's text becomes JSON (a ```json fence around
// it is accepted, then lenient repair), and the JSON must pass the output schema, carry every
// member the skill provides and pass the skill's own check.
//
// Thread-safety: pure functions (the skill's check must itself be thread-safe).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"
#include "skills/compiled_skill.hpp"

namespace keel::detail {

struct ParsedReply {
  nlohmann::json value;
  std::vector<std::string> repairs;  // what was fixed to read it, in order; empty for clean JSON
};

// InvalidArgument saying why the reply is not one JSON value ("the reply is empty", "the reply is
// not JSON: output was cut off inside a string value starting at offset 31").
Result<ParsedReply> parse_skill_reply(std::string_view text);

// InvalidArgument naming what is wrong: "the output does not match the output schema: /n:
// expected integer, got string", "the output has no member 'candidates', which the skill
// provides", or the check's own message.
Status validate_skill_output(const CompiledSkill& skill, const nlohmann::json& output, const nlohmann::json& input);

}  // namespace keel::detail
