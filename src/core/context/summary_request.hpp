// The summarization stage's model request: which span of the history to summarize, and the two
// messages (prompt + rendered span) the host sends to the model.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "core/context/history_layout.hpp"
#include "keel/core/context_manager.hpp"
#include "keel/core/token_counter.hpp"
#include "keel/message.hpp"
#include "keel/result.hpp"

namespace keel::detail {

// The first line of every summary message.
inline constexpr std::string_view kSummaryHeader = "[Summary of earlier conversation]\n";

// Picks the span to summarize and renders the request. The span is the older unprotected part of
// the history: the messages between the system prompt and the task when there are at least two
// (earlier runs), else those between the task and the recency window (never the last round).
// It is shortened, at a tool-block boundary, so that its rendering fits `input_budget` tokens.
// Errors (kFailedPrecondition) say why there is nothing worth summarizing (fewer than 2 messages).
Result<SummaryRequest> plan_summary(std::span<const Message> history, const HistoryLayout& layout,
                                    const TokenCounter& counter, std::string_view prompt, size_t input_budget);

// The summary message that replaces a span: Role::kUser, kSummaryHeader + text, metadata kind =
// "summary", compacted = "summary", summarized_messages = `covered`.
Message make_summary_message(std::string_view text, size_t covered);

}  // namespace keel::detail
