// keel/core/deferred_tools.hpp — lazy tool loading: tools marked ToolSpec::deferred (large MCP
// servers' tools) stay out of model requests until the conversation loads them, so a few big
// servers do not fill the context before the task starts.
//
// A deferred tool is loaded when an ok result of tool_search names it (its "matches" list) or
// when the model called it; loading follows the conversation, so a continued or resumed run keeps
// what it loaded, and compaction that drops the search result drops the tool again (the model can
// search again).
//
//   std::vector<ToolSpec> sent = offered_tools(tools, history);   // what a model call offers
//
// Thread-safety: pure functions.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "keel/message.hpp"
#include "keel/tool_spec.hpp"

namespace keel {

// The name of the tool whose results load deferred tools.
inline constexpr std::string_view kToolSearchName = "tool_search";

// True when some tool in `tools` is deferred.
bool has_deferred_tools(std::span<const ToolSpec> tools);

// The tools a model call offers: every tool not deferred, and the deferred ones `history` loaded,
// in `tools`' order.
std::vector<ToolSpec> offered_tools(std::span<const ToolSpec> tools, std::span<const Message> history);

}  // namespace keel
