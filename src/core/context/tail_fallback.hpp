// The last stage of the context pipeline: drop the oldest parts of the history until it fits.
//
// Order: whole tool blocks (an assistant message with tool_calls and the tool messages after it),
// oldest first; then old plain messages (including orphaned tool messages), oldest first; then
// earlier summaries. Never the system prompt, the task or the last round. When that is not enough,
// the tool results of the last round are cut with detail::apply_result_budget, largest first.
// Whatever remains over the limit is reported (still_over_limit is set by the caller).
//
// Thread-safety: pure function over borrowed state.
#pragma once

#include <cstddef>
#include <vector>

#include "core/context/token_ledger.hpp"
#include "keel/core/context_manager.hpp"
#include "keel/message.hpp"

namespace keel::detail {

// `ledger` is aligned with `history` and stays so; `fixed_tokens` are counted besides the
// messages (tool definitions). Adds what it did to `report` (counts, stages, released call ids).
// Returns how many of the dropped messages were not part of a tool block.
size_t run_tail_fallback(std::vector<Message>& history, TokenLedger& ledger, size_t fixed_tokens, size_t limit,
                         CompactionReport& report);

}  // namespace keel::detail
