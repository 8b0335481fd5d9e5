// Where the protected parts, the recency window and the last round of a working history lie.
//
// Thread-safety: pure functions over a borrowed history.
#pragma once

#include <cstddef>
#include <span>

#include "keel/message.hpp"

namespace keel::detail {

inline constexpr size_t kNoIndex = static_cast<size_t>(-1);

struct HistoryLayout {
  size_t size = 0;
  size_t first = 0;             // first index that may be compacted: 1 after a system prompt, else 0
  size_t task = kNoIndex;       // the protected task message; kNoIndex when there is none
  size_t recency_start = 0;     // first index of the recency window (tool results before it are old)
  size_t last_round_start = 0;  // the last assistant message (protected with all after it)

  // Never dropped or summarized: the system prompt, the task, the last round.
  bool is_protected(size_t i) const { return i < first || i == task || i >= last_round_start; }
};

// The summary message the pipeline writes (metadata kind = "summary").
bool is_summary(const Message& m);

// The task is the last user message with metadata kind = "task", else the first user message that
// is not a summary. The recency window starts at the assistant message of the `recency_rounds`-th
// last tool round (size when recency_rounds <= 0; `first` when there are fewer rounds). The last
// round starts at the last assistant message; without one only the last message is protected.
HistoryLayout find_layout(std::span<const Message> history, int recency_rounds);

}  // namespace keel::detail
