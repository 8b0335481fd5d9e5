// The messages an executable skill sends its model: a system message with the skill's
// instructions, the domain knowledge and the output contract, and a user message with the input
// and what the skill's dependencies provided. A retry adds the rejected reply and why it was
// rejected.
//
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "keel/message.hpp"
#include "skills/compiled_skill.hpp"

namespace keel::detail {

// `provided`: the values the skill's dependencies provided, by name (an object; empty: none).
// `knowledge`: "Domain knowledge" text; empty: no such section.
std::vector<Message> skill_messages(const CompiledSkill& skill, const nlohmann::json& input,
                                    const nlohmann::json& provided, std::string_view knowledge);

// Appends the rejected reply (as the assistant's message) and a user message with `error`.
void append_retry(std::vector<Message>& messages, std::string_view rejected_reply, std::string_view error);

}  // namespace keel::detail
