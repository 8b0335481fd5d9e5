// tools/a2a/a2a_answer.hpp — what an a2a_NAME call returns to the model for the agent's final
// answer: its text (cut at a byte budget, with a note), then the context_id and task_id that let a
// later call continue the conversation. A question (input-required) reads "the remote agent asks:
// ..."; a task that failed, was rejected or canceled, or needs authorization is an error naming the
// agent and the state (with the ids).
//
// Thread-safety: a free function without shared state.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "keel/result.hpp"
#include "tools/a2a/a2a_wire.hpp"

namespace keel::detail {

// The tool output for `reply` of the agent `agent_name` (whose tool is `tool_name`), its text cut
// at `max_text_bytes`.
Result<std::string> a2a_answer(const A2aReply& reply, std::string_view agent_name, std::string_view tool_name,
                               size_t max_text_bytes);

}  // namespace keel::detail
