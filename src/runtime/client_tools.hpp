// runtime/client_tools.hpp — the checks behind client-side tools (Agent::set_client_tools): the
// tools a caller brings, and the conversation it continues with after running their calls.
//
//   KEEL_TRY(check_client_tools(client, own));      // at set_client_tools
//   KEEL_TRY(check_continuation(earlier, added));   // before a run without a task goes on
//
// Thread-safety: pure functions.
#pragma once

#include <span>
#include <vector>

#include "keel/message.hpp"
#include "keel/result.hpp"
#include "keel/tool_spec.hpp"

namespace keel::detail {

// Ok when every client tool has a valid, unique name that none of `own` has and parameters that
// are a JSON object; else InvalidArgument naming the tool.
Status check_client_tools(std::span<const ToolSpec> client, std::span<const ToolSpec> own);

// Ok when `earlier` followed by `added` ends with tool results answering every call of its last
// assistant message, and nothing else after it: a run can go on from there without a task.
// Else InvalidArgument saying what is missing.
Status check_continuation(std::span<const Message> earlier, std::span<const Message> added);

// The part of check_continuation that needs no stored conversation: `added` is not empty and
// holds tool results only.
Status check_continuation_results(std::span<const Message> added);

}  // namespace keel::detail
